import CSQLiteToolkitFaultVFS
import Foundation
import SQLiteToolkit

/// The kinds of I/O call the fault VFS counts and fails.
enum FaultKind: Int32, CaseIterable, CustomStringConvertible, Sendable {
    case read = 0
    case write = 1
    case sync = 2
    case truncate = 3

    var description: String {
        switch self {
        case .read: "read"
        case .write: "write"
        case .sync: "sync"
        case .truncate: "truncate"
        }
    }
}

/// Faults for one test's database files, injected below the codec by the fault VFS (Tests/FaultVFS): the files
/// whose path starts with the scenario's prefix fail the calls it arms. Tests open their databases through
/// ``vfsName``; tests running in parallel each have their own scenario and never see another's faults.
final class FaultScenario {
    /// The name to put in `Configuration.vfs`: the codec shim over the fault layer over the storage VFS.
    static let vfsName = "multipleciphers-sqltk-fault"

    private let scenario: OpaquePointer

    /// A scenario for the files whose path starts with `pathPrefix` (a database path covers its journal and WAL).
    init(pathPrefix: String) throws {
        let registered = sqltk_fault_vfs_register()
        guard registered == 0, let scenario = sqltk_fault_scenario_create(pathPrefix) else {
            throw FaultVFSError(message: "the fault VFS could not be set up (code \(registered))")
        }
        self.scenario = scenario
    }

    deinit { sqltk_fault_scenario_destroy(scenario) }

    /// Fails the `nth` call of `kind` from now on (1-based); `lasting`: that call and every later one.
    func fail(_ kind: FaultKind, nth: Int, lasting: Bool = false) {
        sqltk_fault_arm(scenario, kind.rawValue, Int64(nth), lasting ? 1 : 0)
    }

    /// Stops failing calls of `kind`.
    func heal(_ kind: FaultKind) {
        sqltk_fault_arm(scenario, kind.rawValue, 0, 0)
    }

    /// Stops failing every kind and lifts the disk limit.
    func healAll() {
        for kind in FaultKind.allCases { heal(kind) }
        sqltk_fault_set_disk_limit(scenario, -1)
    }

    /// Answers `SQLITE_FULL` once `bytes` more bytes were written; `nil` lifts the limit.
    func limitDisk(toBytes bytes: Int?) {
        sqltk_fault_set_disk_limit(scenario, Int64(bytes ?? -1))
    }

    /// Keeps writes in memory until synced, so a power cut can drop them.
    func keepUnsyncedWritesInMemory() {
        sqltk_fault_set_power_cut_mode(scenario, 1)
    }

    /// Cuts the power at the `nth` write or sync from now; `seed` 0 drops every unsynced write, another keeps a
    /// random part of them in whole sectors.
    func cutPower(atWriteOrSync nth: Int, seed: UInt64) {
        sqltk_fault_arm_power_cut(scenario, Int64(nth), seed)
    }

    /// Cuts the power now.
    func cutPowerNow(seed: UInt64) {
        sqltk_fault_power_cut(scenario, seed)
    }

    /// The calls of `kind` made so far.
    func calls(_ kind: FaultKind) -> Int { Int(sqltk_fault_calls(scenario, kind.rawValue)) }

    /// The writes and syncs made so far.
    var writesAndSyncs: Int { calls(.write) + calls(.sync) }

    /// The faults injected so far.
    var injected: Int { Int(sqltk_fault_injected(scenario)) }

    /// Whether the power was cut.
    var isPoweredOff: Bool { sqltk_fault_is_powered_off(scenario) != 0 }
}

/// The fault VFS could not be registered.
struct FaultVFSError: Error {
    let message: String
}

/// A database file of its own for a test, removed with its directory afterwards.
enum FaultTestFile {
    static func withDatabasePath<T>(_ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("SQLiteToolkitFaultTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory.appendingPathComponent("test.sqlite").path)
    }
}

extension Database.Configuration {
    /// A configuration that opens through the fault VFS.
    static func faulty(key: DatabaseKey? = nil) -> Database.Configuration {
        var configuration = Database.Configuration()
        configuration.vfs = FaultScenario.vfsName
        configuration.key = key
        configuration.busyMode = .immediateError
        return configuration
    }

    /// A configuration with `key`, through the default VFS.
    static func keyed(_ key: DatabaseKey?) -> Database.Configuration {
        var configuration = Database.Configuration()
        configuration.key = key
        return configuration
    }
}

extension Database {
    /// The values of `t.x`, in order.
    func values(of table: String = "t") throws -> [Int] {
        try query("SELECT x FROM \(table) ORDER BY rowid").map { try $0.value(at: 0) as Int }
    }
}
