#if os(macOS) || os(Linux)
    import Foundation
    import Testing

    /// The package's root folder: this file is Tests/CSQLiteToolkitTests/FetchScriptTests.swift.
    private let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    private let packageScriptFolder = packageRoot.appendingPathComponent("sqlite-amalgamation")

    /// The pins of `sqlite3mc.lock.json` that these tests need.
    private struct Lock: Decodable {
        let file: String
        let sha256: String
        let sqliteVersion: String

        enum CodingKeys: String, CodingKey {
            case file, sha256
            case sqliteVersion = "sqlite_version"
        }

        static func load() throws -> Lock {
            let data = try Data(contentsOf: packageScriptFolder.appendingPathComponent("sqlite3mc.lock.json"))
            return try JSONDecoder().decode(Lock.self, from: data)
        }
    }

    /// The folder where `fetch` keeps the verified download, by the script's own rule:
    /// $SQLTK_FETCH_CACHE, else $XDG_CACHE_HOME/sqlitetoolkit, else ~/.cache/sqlitetoolkit.
    private func userCacheFolder() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let configured = environment["SQLTK_FETCH_CACHE"], !configured.isEmpty {
            return URL(fileURLWithPath: configured)
        }
        let base: URL
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            base = URL(fileURLWithPath: xdg)
        } else {
            base = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".cache")
        }
        return base.appendingPathComponent("sqlitetoolkit")
    }

    /// How one run of the script ended.
    private struct FetchRun {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    private struct FetchTimedOut: Error, CustomStringConvertible {
        let seconds: Int
        var description: String { "sqlite-amalgamation/fetch did not finish within \(seconds) s and was terminated" }
    }

    /// A copy of `fetch` and its lock file in a fresh temporary folder, so the script
    /// installs beside the copy, with a cache folder of its own. Call `remove()` when done.
    private struct FetchWorkspace {
        let root: URL
        let scriptFolder: URL
        let cache: URL

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("sqltk-fetch-\(UUID().uuidString)")
            scriptFolder = root.appendingPathComponent("sqlite-amalgamation")
            cache = root.appendingPathComponent("cache")
            for folder in [scriptFolder, cache] {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
            for name in ["fetch", "sqlite3mc.lock.json"] {
                try FileManager.default.copyItem(
                    at: packageScriptFolder.appendingPathComponent(name),
                    to: scriptFolder.appendingPathComponent(name)
                )
            }
        }

        func remove() {
            try? FileManager.default.removeItem(at: root)
        }

        /// The names in the script's folder, sorted.
        func scriptFolderContents() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: scriptFolder.path).sorted()
        }

        /// Runs the copied script with `/usr/bin/env python3`, terminating it after `timeout` seconds.
        func runFetch(timeout: Int = 120) throws -> FetchRun {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", scriptFolder.appendingPathComponent("fetch").path]
            var environment = ProcessInfo.processInfo.environment
            environment["SQLTK_FETCH_CACHE"] = cache.path
            // Nothing here may download: should the script try, it fails at once on a
            // closed local port instead of reaching the package index.
            environment["PIP_INDEX_URL"] = "http://127.0.0.1:9/simple/"
            process.environment = environment
            let output = Pipe()
            let errors = Pipe()
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = output
            process.standardError = errors
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            try process.run()
            if exited.wait(timeout: .now() + .seconds(timeout)) == .timedOut {
                process.terminate()
                exited.wait()
                throw FetchTimedOut(seconds: timeout)
            }
            // The script writes a few lines, far less than a pipe holds, so reading
            // after it exits cannot deadlock.
            return FetchRun(
                status: process.terminationStatus,
                standardOutput: String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                standardError: String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            )
        }
    }

    /// The inode of a file or folder: a file written anew, or a folder swapped in by a
    /// rename, gets a different one even when its contents are the same.
    private func fileNumber(of url: URL) throws -> UInt64? {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
    }

    /// What a later run of the script must leave unchanged in one installed file.
    private struct FileState: Equatable {
        let systemFileNumber: UInt64?
        let modificationDate: Date?
        let contents: Data

        init(_ url: URL) throws {
            systemFileNumber = try fileNumber(of: url)
            modificationDate = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
            contents = try Data(contentsOf: url)
        }
    }

    @Suite("sqlite-amalgamation/fetch", .serialized)
    struct FetchScriptTests {
        @Test("a corrupt cached download is reported, exits non-zero and installs nothing")
        func corruptCacheInstallsNothing() throws {
            let lock = try Lock.load()
            let workspace = try FetchWorkspace()
            defer { workspace.remove() }
            let cachedArchive = workspace.cache.appendingPathComponent(lock.file)
            try Data("these bytes are not the pinned archive".utf8).write(to: cachedArchive)

            let run = try workspace.runFetch()

            #expect(run.status != 0)
            #expect(run.standardError.contains("the cached download \(cachedArchive.path) is corrupt: sha256"))
            #expect(run.standardError.contains("expected \(lock.sha256)"))
            #expect(run.standardError.contains("nothing was installed"))
            // No installed/ folder and no staging (.installed-*) or retired folder left behind.
            #expect(try workspace.scriptFolderContents() == ["fetch", "sqlite3mc.lock.json"])
            // The script removes the corrupt file so that its next run downloads afresh.
            #expect(!FileManager.default.fileExists(atPath: cachedArchive.path))
        }

        @Test("a second run with a verified cache says it is up to date and changes nothing")
        func secondRunChangesNothing() throws {
            let lock = try Lock.load()
            let verifiedArchive = userCacheFolder().appendingPathComponent(lock.file)
            try #require(
                FileManager.default.fileExists(atPath: verifiedArchive.path),
                "\(verifiedArchive.path) is missing: run sqlite-amalgamation/fetch first"
            )
            let workspace = try FetchWorkspace()
            defer { workspace.remove() }
            try FileManager.default.copyItem(at: verifiedArchive, to: workspace.cache.appendingPathComponent(lock.file))

            let first = try workspace.runFetch()
            try #require(first.status == 0, "the first run failed: \(first.standardOutput)\(first.standardError)")
            #expect(first.standardError.contains("installed SQLite \(lock.sqliteVersion)"))
            let installed = workspace.scriptFolder.appendingPathComponent("installed")
            let names = try FileManager.default.contentsOfDirectory(atPath: installed.path).sorted()
            #expect(names == ["STAMP.json", "sqlite3.c", "sqlite3.h", "sqlite3ext.h", "sqlite3mc.h"])
            let before = try names.map { try FileState(installed.appendingPathComponent($0)) }
            let folderBefore = try fileNumber(of: installed)

            let second = try workspace.runFetch()

            #expect(second.status == 0)
            #expect(second.standardError.contains("up to date: \(lock.file) is installed in \(installed.path)"))
            #expect(!second.standardError.contains("installed SQLite"))
            #expect(try workspace.scriptFolderContents() == ["fetch", "installed", "sqlite3mc.lock.json"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: installed.path).sorted() == names)
            #expect(try names.map { try FileState(installed.appendingPathComponent($0)) } == before)
            #expect(try fileNumber(of: installed) == folderBefore)
        }
    }
#endif
