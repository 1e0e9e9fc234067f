import Foundation
import SQLiteToolkit
import Testing

/// Debian's SpatiaLite (`mod_spatialite.so`), an extension that also links the system `libsqlite3`: two SQLite
/// libraries in one process. The toolkit's symbols carry the `sqltk_` prefix, so the dynamic linker never binds one
/// library's calls to the other's functions; SpatiaLite's own calls reach the toolkit's SQLite through the routines
/// table its init function is given, and the system library serves only the code that calls it by name (PROJ, which
/// SpatiaLite uses, reads its `proj.db` with it).
@Suite(
    "SpatiaLite through the toolkit",
    .enabled(if: ExtensionPeers.spatialite != nil, "SpatiaLite missing: run scripts/install-test-peers")
)
struct SpatiaLiteTests {
    @Test("mod_spatialite loads through the API and its geometry functions run on the toolkit's connection")
    func loadsAndRuns() throws {
        let path = try #require(ExtensionPeers.spatialite)
        let db = try Database()
        try db.loadExtension(atPath: path)
        let version = try #require(try db.queryValue("SELECT spatialite_version()", as: String.self))
        #expect(version.hasPrefix("5."))
        #expect(try db.queryValue("SELECT ST_AsText(MakePoint(1.5, 2.5))", as: String.self) == "POINT(1.5 2.5)")
        let area = try #require(
            try db.queryValue("SELECT ST_Area(GeomFromText('POLYGON((0 0, 4 0, 4 3, 0 3, 0 0))'))", as: Double.self))
        #expect(area == 12)
        #expect(try db.queryValue("SELECT sqlite_version()", as: String.self) == SQLiteLibrary.version())
        #if os(Linux)
            // The system SQLite came in with it: two SQLite libraries now live in this process.
            // Read to the end: /proc reports a size of 0, so a read sized by the file's length stops early.
            let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
            defer { try? handle.close() }
            let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            #expect(maps.contains("libsqlite3.so"))
        #endif
    }

    /// SpatiaLite checks geometries in triggers that call its functions, which it does not mark innocuous: with the
    /// toolkit's `trusted_schema` off they are refused, by name, until the program trusts the schema of that one
    /// connection.
    @Test("a geometry column's triggers are refused with trusted_schema off, and run once the connection trusts it")
    func geometryColumn() throws {
        let path = try #require(ExtensionPeers.spatialite)
        try TemporaryFile.withDatabasePath { file in
            let db = try Database(path: file)
            try db.loadExtension(atPath: path)
            #expect(try db.queryValue("SELECT InitSpatialMetadata(1)", as: Int.self) == 1)
            #expect(try db.queryValue("SELECT count(*) FROM spatial_ref_sys", as: Int.self) ?? 0 > 0)
            try db.execute("CREATE TABLE place (id INTEGER PRIMARY KEY, name TEXT)")
            #expect(
                try db.queryValue("SELECT AddGeometryColumn('place', 'geom', 4326, 'POINT', 'XY')", as: Int.self) == 1)
            let insert = "INSERT INTO place (name, geom) VALUES ('a', MakePoint(2.35, 48.85, 4326))"
            let error = try #require(throws: DatabaseError.self) { try db.execute(insert) }
            #expect(error.message.contains("unsafe use of GeometryConstraints()"))
            try db.execute("PRAGMA trusted_schema = ON")
            try db.execute(insert)
            #expect(try db.queryValue("SELECT ST_X(geom) FROM place", as: Double.self) == 2.35)
        }
    }
}
