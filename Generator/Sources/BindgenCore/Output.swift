import Foundation

/// Formats generated text with the toolchain's `swift format` and the repository's configuration, so the
/// committed files pass the same lint as hand-written code.
public enum Formatter {
    /// Returns `text` formatted with the configuration file at `configuration`.
    public static func format(_ text: String, configuration: String) throws -> String {
        let input = FileManager.default.temporaryDirectory
            .appendingPathComponent(
                "sqltk-bindgen-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString).swift")
        try Data(text.utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let output = try run("swift", ["format", "format", "--configuration", configuration, input.path])
        return String(decoding: output, as: UTF8.self)
    }
}

/// Compares and writes the generated folder. Files in it that the generator no longer makes count as stale and are
/// removed on write.
public enum Writer {
    /// Names of files whose content differs, that are missing, or that are no longer generated.
    public static func compare(_ files: [String: String], directory: String) throws -> [String] {
        let existing = Set((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        var stale: [String] = []
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            let path = (directory as NSString).appendingPathComponent(name)
            if (try? Data(contentsOf: URL(fileURLWithPath: path))) != Data(text.utf8) { stale.append(name) }
        }
        stale += existing.subtracting(files.keys).filter { $0.hasSuffix(".swift") }.sorted()
        return stale
    }

    /// Writes `files` into `directory`, skipping unchanged files and removing `.swift` files no longer generated.
    public static func write(_ files: [String: String], directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let existing = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in existing where name.hasSuffix(".swift") && files[name] == nil {
            try FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(name))
        }
        for (name, text) in files {
            let path = (directory as NSString).appendingPathComponent(name)
            if (try? Data(contentsOf: URL(fileURLWithPath: path))) == Data(text.utf8) { continue }
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
    }
}

extension Writer {
    /// Paths of `files` (relative to `root`) whose content differs from the file at that path or that are missing,
    /// sorted. Used for generated files that share their folders with hand-written ones, so nothing else is looked at.
    public static func stalePaths(_ files: [String: String], root: String) -> [String] {
        files.keys.sorted().filter { relativePath in
            let path = (root as NSString).appendingPathComponent(relativePath)
            return (try? Data(contentsOf: URL(fileURLWithPath: path))) != files[relativePath].map { Data($0.utf8) }
        }
    }

    /// Writes the stale ones of `files` (paths relative to `root`), creating their folders; removes nothing. Returns
    /// the paths written.
    @discardableResult
    public static func write(_ files: [String: String], root: String) throws -> [String] {
        let stale = stalePaths(files, root: root)
        for relativePath in stale {
            let url = URL(fileURLWithPath: (root as NSString).appendingPathComponent(relativePath))
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(files[relativePath, default: ""].utf8).write(to: url)
        }
        return stale
    }
}
