#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How every connection of a queue or pool is opened: the same path, configuration and set-up hook each time.
struct ConnectionRecipe: Sendable {
    var path: String
    var configuration: Database.Configuration
    var setUp: (@Sendable (Database) throws -> Void)?

    /// Opens a connection and runs the set-up hook on it; nothing stays open when either fails.
    func open() throws -> Database {
        // Database.init runs sqlite3_initialize once per process before the first open.
        let database = try Database(path: path, configuration: configuration)
        do {
            try setUp?(database)
        } catch {
            database.close()
            throw error
        }
        return database
    }
}
