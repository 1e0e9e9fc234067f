import Foundation
import Testing

@testable import BindgenCore

@Suite("Coverage of the real header")
struct RealHeaderCoverageTests {
    @Test("Generator/Spec decides every function of CSQLiteToolkit.h")
    func decidesEveryFunction() throws {
        let root = Fixtures.repositoryRoot
        let generator = try Generator(
            header: root.appendingPathComponent(Repository.header).path,
            specDirectory: root.appendingPathComponent(Repository.spec).path,
            clang: Fixtures.clang
        )
        // Counted first with undecided functions allowed, so the numbers show even while the spec is incomplete.
        let progress = try generator.coverage(allowingUndecided: true)
        print(
            "CSQLiteToolkit.h: \(progress.declared) functions, \(progress.wrapped) wrapped "
                + "(\(progress.wrappers) Swift wrappers), \(progress.skipped) skipped, \(progress.undecided) undecided"
        )
        let coverage = try generator.coverage()
        #expect(coverage.undecided == 0)
        #expect(coverage.wrapped + coverage.skipped == coverage.declared)
    }
}
