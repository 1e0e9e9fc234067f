import Foundation
import Testing

@testable import BindgenCore

@Suite("Finding the repository root")
struct RepositoryTests {
    @Test("from the repository root, Generator/ or deeper, the root is the repository's")
    func findsRoot() throws {
        let root = Fixtures.repositoryRoot.path
        for start in ["", "Generator", "Generator/Sources/BindgenCore", "Sources/SQLiteBindings/Generated"] {
            #expect(Repository.root(containing: Repository.path(start, in: root)) == root, "from \(start)")
        }
    }

    @Test("a folder is a root by its layout: Generator/Spec and sqlite-amalgamation")
    func rootByLayout() throws {
        try Fixtures.withTemporaryDirectory { directory in
            let root = directory.appendingPathComponent("checkout")
            let nested = root.appendingPathComponent("Generator/Tests")
            try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
            // Generator/ without Spec/ beside sqlite-amalgamation is not a root yet.
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("sqlite-amalgamation"), withIntermediateDirectories: true)
            #expect(Repository.root(containing: nested.path) == nil)

            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("Generator/Spec"), withIntermediateDirectories: true)
            #expect(Repository.root(containing: nested.path) == root.standardizedFileURL.path)
        }
    }

    @Test("above a folder outside any repository there is no root")
    func noRoot() throws {
        try Fixtures.withTemporaryDirectory { directory in
            #expect(Repository.root(containing: directory.path) == nil)
        }
    }
}
