import Foundation
import PackagePlugin

/// `swift package install-sqlite`: installs the pinned, prefixed SQLite amalgamation into the SQLiteToolkit
/// checkout that the current package depends on (or into this repository, when run here).
///
/// The amalgamation is installed, never committed, so every checkout of SQLiteToolkit needs this one step before
/// its first build. The plugin finds that checkout among the current package's dependencies and runs its
/// `sqlite-amalgamation/fetch` (Python 3, standard library only), which verifies every checksum, keeps the verified
/// download in a cache, and does nothing when the installed files already match the pins.
@main
struct InstallSQLite: CommandPlugin {
    /// The command a person types, for messages.
    static let command =
        "swift package --allow-writing-to-package-directory --allow-network-connections all install-sqlite"

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        guard let toolkit = Self.toolkitPackage(from: context.package) else {
            throw InstallError(
                "no SQLiteToolkit package found among the dependencies of \(context.package.displayName); "
                    + "add it to Package.swift and run `swift package resolve` first")
        }
        guard let python = Self.findPython() else {
            throw InstallError(
                "Python 3 is needed to install SQLite (the install script uses only its standard library), and no "
                    + "`python3` was found on PATH: install Python 3, then run `\(Self.command)` again")
        }
        let fetch = toolkit.directoryURL.appendingPathComponent("sqlite-amalgamation/fetch")
        var environment = ProcessInfo.processInfo.environment
        #if os(macOS)
            // The plugin sandbox lets a command write only to the package and the plugin's own folder, not to ~/.cache.
            if environment["SQLTK_FETCH_CACHE"] == nil {
                environment["SQLTK_FETCH_CACHE"] = context.pluginWorkDirectoryURL.appendingPathComponent("cache").path
            }
        #endif
        let process = Process()
        process.executableURL = python
        process.arguments = [fetch.path]
        process.environment = environment
        do {
            try process.run()
        } catch {
            throw InstallError("could not start \(python.path) \(fetch.path): \(error)")
        }
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw InstallError(
                "installing SQLite failed (the lines above say why); fix that and run `\(Self.command)` again")
        }
        let installed = toolkit.directoryURL.appendingPathComponent("sqlite-amalgamation/installed").path
        print("install-sqlite: SQLite is installed in \(installed)")
        print("install-sqlite: next, build as usual: swift build")
    }

    /// The SQLiteToolkit package: the root itself when it is SQLiteToolkit, or the dependency that holds its C
    /// target, searched breadth-first so the nearest copy wins.
    static func toolkitPackage(from root: Package) -> Package? {
        var queue = [root]
        var seen: Set<String> = []
        while !queue.isEmpty {
            let package = queue.removeFirst()
            guard seen.insert(package.id).inserted else { continue }
            if package.targets.contains(where: { $0.name == "CSQLiteToolkit" }) { return package }
            queue += package.dependencies.map(\.package)
        }
        return nil
    }

    /// `python3` (or `python`, when it is Python 3) from PATH.
    static func findPython() -> URL? {
        // Windows separates PATH's folders with `;` and names executables `.exe`; the python.org installer and the
        // Microsoft Store both provide `python.exe`, and only some a `python3.exe`.
        #if os(Windows)
            let separator: Character = ";"
            let names = ["python3.exe", "python.exe"]
            let path = ProcessInfo.processInfo.environment["Path"] ?? ProcessInfo.processInfo.environment["PATH"] ?? ""
        #else
            let separator: Character = ":"
            let names = ["python3", "python"]
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        #endif
        for directory in path.split(separator: separator) {
            for name in names {
                let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path), isPython3(candidate) {
                    return candidate
                }
            }
        }
        return nil
    }

    /// Whether `executable` runs Python 3 (a `python` on PATH may be Python 2).
    static func isPython3(_ executable: URL) -> Bool {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["-c", "import sys; sys.exit(0 if sys.version_info[0] == 3 else 1)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationReason == .exit && process.terminationStatus == 0
    }
}

/// A failure, with what to do about it.
struct InstallError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = "install-sqlite: " + description
    }
}
