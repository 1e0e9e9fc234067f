import Foundation

/// The repository's files the generator reads and writes, as paths relative to the repository root, and how the
/// generator finds that root.
///
/// The generator is a package of its own in `Generator/`. It runs from the repository root
/// (`swift run --package-path Generator sqltk-bindgen`) or from inside `Generator/` (`swift run sqltk-bindgen`);
/// both must read the same header and spec and write the same files, so its default paths are resolved against the
/// root, never against the current folder.
public enum Repository {
    /// The umbrella header, which includes the installed, prefixed `sqlite3mc.h` (in `sqlite-amalgamation/installed`).
    public static let header = "sqlite-amalgamation/include/CSQLiteToolkit.h"
    /// The header that `sqlite-amalgamation/fetch` installs; without it clang cannot read the umbrella header.
    public static let installedHeader = "sqlite-amalgamation/installed/sqlite3mc.h"
    /// The spec folder: one JSON file per receiver or constant group.
    public static let spec = "Generator/Spec"
    /// The folder of the generated bindings.
    public static let bindingsOutput = "Sources/SQLiteBindings/Generated"
    /// The `swift format` configuration that generated files are formatted with.
    public static let formatConfiguration = ".swift-format"

    /// The nearest folder at or above `directory` that holds both `Generator/Spec` and `sqlite-amalgamation`, or `nil`
    /// when no folder up to the file system's root does.
    public static func root(containing directory: String) -> String? {
        var candidate = (directory as NSString).standardizingPath
        while true {
            if isRoot(candidate) { return candidate }
            let parent = (candidate as NSString).deletingLastPathComponent
            if parent == candidate || parent.isEmpty { return nil }
            candidate = parent
        }
    }

    /// `relativePath` inside the repository whose root is `root`.
    public static func path(_ relativePath: String, in root: String) -> String {
        (root as NSString).appendingPathComponent(relativePath)
    }

    private static func isRoot(_ directory: String) -> Bool {
        ["Generator/Spec", "sqlite-amalgamation"].allSatisfy { folder in
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(
                atPath: path(folder, in: directory), isDirectory: &isDirectory)
            return exists && isDirectory.boolValue
        }
    }
}
