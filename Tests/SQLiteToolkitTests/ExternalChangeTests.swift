import Foundation
import Testing

@testable import SQLiteToolkit

/// Commits made outside a queue's connection, or a pool's writer, in this process; the watch's life (it runs only
/// while something observes); its settings.
@Suite("Commits made outside the connection", .timeLimit(.minutes(3)))
struct ExternalChangeTests {
    /// Commits `numbers` from a second connection of this process, each once the value before it was seen.
    private func commitEach(
        _ numbers: ClosedRange<Int>, to path: String, seenBy observed: ExternalChanges.Observed
    ) async throws {
        let other = try Database(path: path)
        defer { other.close() }
        for number in numbers {
            try other.execute("INSERT INTO item (n) VALUES (?)", number)
            #expect(try await observed.values.waitFor(number), "row \(number) was not seen")
        }
    }

    @Test("a second connection's commits are seen", arguments: ExternalChanges.Subject.allCases)
    func secondConnection(_ subject: ExternalChanges.Subject) async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let observed = try ExternalChanges.observe(subject, path: path)
            do {
                #expect(try await observed.values.waitFor(0))
                try await commitEach(1...3, to: path, seenBy: observed)
            } catch {
                await observed.close()
                throw error
            }
            await observed.close()
        }
    }

    @Test("polling sees commits", arguments: ExternalChanges.Subject.allCases)
    func polling(_ subject: ExternalChanges.Subject) async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: subject == .pool ? "wal" : "delete")
            let observed = try ExternalChanges.observe(
                subject, path: path, detection: .polling(interval: .milliseconds(20)))
            do {
                #expect(try await observed.values.waitFor(0))
                #expect(observed.watch.runningMonitor?.kind == .polling)
                try await commitEach(1...3, to: path, seenBy: observed)
            } catch {
                await observed.close()
                throw error
            }
            await observed.close()
        }
    }

    @Test("switching to polling while observing keeps seeing commits")
    func switchingDetection() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let observed = try ExternalChanges.observe(.queue, path: path)
            let queue = try #require(observed.writer as? DatabaseQueue)
            do {
                #expect(try await observed.values.waitFor(0))
                try await commitEach(1...1, to: path, seenBy: observed)
                try queue.setExternalChangeDetection(.polling(interval: .milliseconds(20)))
                #expect(observed.watch.runningMonitor?.kind == .polling)
                try await commitEach(2...3, to: path, seenBy: observed)
            } catch {
                await observed.close()
                throw error
            }
            await observed.close()
        }
    }

    @Test("transaction observers hear of an outside commit as an external change, whatever tables they watch")
    func transactionObserversHearExternalChanges() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let queue = try DatabaseQueue(path: path)
            defer { queue.close() }
            let heard = Locked<[DatabaseTransactionChanges]>([])
            let id = try await queue.inDatabase { db in
                try db.addTransactionObserver(tables: ["item"]) { changes in heard.withLock { $0.append(changes) } }
            }
            let other = try Database(path: path)
            try other.execute("INSERT INTO item (n) VALUES (1)")
            other.close()
            #expect(try await ExternalChanges.eventually { !heard.current.isEmpty })
            // The queue's own commit is told as before, with its table.
            try await queue.write { db in try db.execute("INSERT INTO item (n) VALUES (2)") }
            try await queue.inDatabase { db in db.removeTransactionObserver(id) }
            let changes = heard.current
            let external = try #require(changes.first)
            #expect(external.isExternal)
            #expect(external.tables.isEmpty && external.rowChanges.isEmpty)
            #expect(external.changed(table: "item") && external.changed(table: "anything"))
            let own = try #require(changes.last)
            #expect(!own.isExternal && own.tables == ["item"])
            #expect(queue.serialized.externalChanges.runningMonitor == nil)
        }
    }

    @Test(
        "the watch runs only while something observes, and its descriptor is closed when it stops",
        arguments: ExternalChanges.Subject.allCases)
    func watchLifetime(_ subject: ExternalChanges.Subject) async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            // Opened and written to without observing first.
            let observed = try ExternalChanges.observe(subject, path: path, observing: false)
            let watch = observed.watch
            do {
                try await observed.writer.write { db in try db.execute("INSERT INTO item (n) VALUES (1)") }
                #expect(watch.runningMonitor == nil, "a queue or pool that observes nothing watches nothing")
                let values = try observed.startObserving()
                #expect(try await values.waitFor(1))
                let monitor = try #require(watch.runningMonitor)
                await values.stop()
                #expect(try await ExternalChanges.eventually { watch.runningMonitor == nil })
                #if os(Linux)
                    // The inotify descriptor is closed (by the cancelled source, just after the stop).
                    #expect(monitor.fileDescriptor != nil)
                    #expect(try await ExternalChanges.eventually { monitor.hasClosedDescriptor })
                #else
                    _ = monitor
                #endif
            } catch {
                await observed.close()
                throw error
            }
            await observed.close()
        }
    }

    @Test("an in-memory queue, or detection turned off, starts no watch")
    func noWatch() async throws {
        let memory = try DatabaseQueue()
        defer { memory.close() }
        try await memory.write { db in try db.execute(ExternalChanges.schema) }
        let memoryValues = ValueLog(
            memory.observe { db in try db.queryValue(ExternalChanges.lastNumber, as: Int.self) ?? 0 })
        #expect(try await memoryValues.waitFor(0))
        #expect(memory.serialized.externalChanges.runningMonitor == nil)
        await memoryValues.stop()

        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let observed = try ExternalChanges.observe(.pool, path: path, detection: .disabled)
            #expect(try await observed.values.waitFor(0))
            #expect(observed.watch.runningMonitor == nil)
            await observed.close()
        }
    }

    @Test(
        "closing while another process commits ends the stream and the watch",
        arguments: ExternalChanges.Subject.allCases)
    func closeWhileEventsArrive(_ subject: ExternalChanges.Subject) async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let observed = try ExternalChanges.observe(subject, path: path)
            let child = try TestHelper.Child(["commit-rows", path, "400", "--pause-ms", "1"])
            #expect(try await ExternalChanges.eventually { observed.values.values.current.count >= 3 })
            // Closing, not cancelling: the stream must end on its own.
            if let queue = observed.writer as? DatabaseQueue { queue.close() }
            if let pool = observed.writer as? DatabasePool { pool.close() }
            #expect(try await ExternalChanges.eventually { observed.values.ended.current })
            #expect(observed.watch.runningMonitor == nil)
            let exit = try await child.wait(seconds: 60)
            #expect(exit?.status == 0, "commit-rows: \(exit?.output ?? "did not end")")
            await observed.close()
        }
    }

    @Test("a burst of commits while the connection is busy makes one look, not one per commit")
    func burstIsCoalesced() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let observed = try ExternalChanges.observe(.queue, path: path)
            let queue = try #require(observed.writer as? DatabaseQueue)
            do {
                #expect(try await observed.values.waitFor(0))
                let release = try await holdAccess { inside in try queue.inDatabase { _ in inside() } }
                let before = observed.watch.checkCount
                let commits = 40
                let other = try Database(path: path)
                for number in 1...commits { try other.execute("INSERT INTO item (n) VALUES (?)", number) }
                other.close()
                // The events arrived and scheduled a look, which waits for the held connection.
                #expect(try await ExternalChanges.eventually { observed.watch.hasPendingCheck })
                release.signal()
                #expect(try await observed.values.waitFor(commits))
                // One look answers the burst; events the monitor read after it began may add one more, and each
                // look that finds nothing looks again three times, a little later.
                let looks = observed.watch.checkCount - before
                #expect(looks >= 1 && looks < commits, "\(looks) looks for \(commits) commits")
                #expect(observed.values.values.current == [0, commits])
            } catch {
                await observed.close()
                throw error
            }
            await observed.close()
        }
    }

    @Test("a polling interval that is not positive is refused, by name")
    func invalidPolling() throws {
        let queue = try DatabaseQueue()
        defer { queue.close() }
        for interval: DispatchTimeInterval in [.never, .milliseconds(0), .seconds(-1), .seconds(Int.max)] {
            #expect {
                try queue.setExternalChangeDetection(.polling(interval: interval))
            } throws: { error in
                (error as? DatabaseError)?.reason == .invalidExternalChangeDetection("polling(interval:)")
            }
        }
        guard case .fileSystemEvents = queue.externalChangeDetection else {
            Issue.record("a refused setting replaced the default")
            return
        }
    }

    #if os(Linux)
        @Test("inotify events are kept for the database, its -wal and its -journal only")
        func inotifyNames() {
            let (folder, names) = ExternalChangeMonitor.watchedNames(path: "/data/app.sqlite")
            #expect(folder == "/data" && names == ["app.sqlite", "app.sqlite-wal", "app.sqlite-journal"])
            #expect(ExternalChangeMonitor.watchedNames(path: "/app.sqlite").folder == "/")
            let matcher = InotifyEventMatcher(names: names)
            func event(_ name: String, mask: UInt32 = 2, padded: Int = 16) -> [UInt8] {
                var bytes = [UInt8](repeating: 0, count: 16 + padded)
                withUnsafeBytes(of: mask) { for index in 0..<4 { bytes[4 + index] = $0[index] } }
                withUnsafeBytes(of: UInt32(padded)) { for index in 0..<4 { bytes[12 + index] = $0[index] } }
                for (index, byte) in name.utf8.enumerated() { bytes[16 + index] = byte }
                return bytes
            }
            #expect(!matcher.matches(ArraySlice(event("app.sqlite-shm") + event("other.sqlite-wal"))))
            #expect(matcher.matches(ArraySlice(event("other") + event("app.sqlite-wal"))))
            #expect(!matcher.matches(ArraySlice(event("app.sqlite-walx"))))
            // The kernel's queue overflowed: any change may have been lost.
            #expect(matcher.matches(ArraySlice(event("", mask: 0x4000, padded: 0))))
        }
    #endif
}
