import Foundation
import SQLiteToolkit
import SQLiteToolkitCluster
import Testing

#if canImport(Glibc)
    import Glibc

    /// Whether this machine lets the test make network namespaces, veth pairs and a bridge (root with
    /// CAP_NET_ADMIN): scripts/dqlite-cluster tries.
    private let namespacesAvailable =
        getuid() == 0 && dqliteInstalled && (try? DqliteCluster.script(["netns-check", "/tmp"])) != nil

    /// Runs `body` on a new thread that has entered the network namespace `name`: the sockets it opens are in that
    /// namespace. The thread ends with `body`, so no thread of the process stays in the namespace.
    private func inNamespace<T: Sendable>(
        _ name: String, _ body: @escaping @Sendable () throws -> T
    ) throws -> T {
        let box = ResultBox<T>()
        let thread = Thread {
            defer { box.done.signal() }
            let descriptor = open("/var/run/netns/\(name)", O_RDONLY)
            guard descriptor >= 0, let setns = setnsFunction, setns(descriptor, cloneNewNet) == 0 else {
                box.result = .failure(NamespaceFailure(name: name, code: errno))
                if descriptor >= 0 { close(descriptor) }
                return
            }
            close(descriptor)
            box.result = Result { try body() }
        }
        thread.start()
        box.done.wait()
        guard let result = box.result else { throw NamespaceFailure(name: name, code: 0) }
        return try result.get()
    }

    /// The thread's result, handed to the waiting test.
    private final class ResultBox<T>: @unchecked Sendable {
        // @unchecked Sendable: written by the thread before it signals `done`, read after the wait.
        var result: Result<T, any Error>?
        let done = DispatchSemaphore(value: 0)
    }

    /// glibc's `setns`, looked up at run time: Swift's Glibc module leaves it out (it is a GNU extension).
    private let setnsFunction: (@convention(c) (Int32, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()

    /// `CLONE_NEWNET` of <sched.h>, also left out of the Glibc module.
    private let cloneNewNet: Int32 = 0x4000_0000

    private struct NamespaceFailure: Error, CustomStringConvertible {
        let name: String
        let code: Int32
        var description: String { "could not enter the network namespace \(name): errno \(code)" }
    }

    @Suite(
        "A dqlite node partitioned away",
        .serialized,
        .enabled(if: dqliteInstalled, "needs dqlite-demo from Debian's go-dqlite (scripts/install-test-peers)"),
        .enabled(if: namespacesAvailable, "needs root with CAP_NET_ADMIN and the ip command to make network namespaces")
    )
    struct PartitionTests {
        @Test(.timeLimit(.minutes(2)))
        func anIsolatedLeaderCannotAcknowledgeWrites() throws {
            let cluster = try DqliteCluster(namespaces: true)
            defer { cluster.stop() }
            let setup = try ClusterDatabase(nodes: cluster.addresses, name: "partition.db")
            try setup.execute("CREATE TABLE t (n INTEGER)")
            try setup.execute("INSERT INTO t VALUES (0)")
            let leader = try #require(setup.leaderAddress)
            setup.close()
            let isolated = try #require(cluster.addresses.firstIndex(of: leader))
            try cluster.partition(isolated)

            // A client beside the isolated leader, in its namespace, still reaches it; the leader cannot reach a
            // majority, so it must not acknowledge the write.
            let isolatedWrite: Result<Void, ClusterError> = try inNamespace(cluster.namespaces[isolated]) {
                do {
                    let database = try ClusterDatabase(
                        nodes: [leader], name: "partition.db",
                        timeouts: .init(connect: 1, request: 20, leaderSearch: 2))
                    defer { database.close() }
                    try database.execute("INSERT INTO t VALUES (1)")
                    return .success(())
                } catch let error as ClusterError {
                    return .failure(error)
                }
            }
            guard case .failure(let error) = isolatedWrite else {
                Issue.record("the isolated leader acknowledged a write")
                return
            }
            print("dqlite partition: the isolated leader's client got: \(error)")

            // The majority elects a leader of its own and goes on.
            let others = cluster.addresses.enumerated().filter { $0.offset != isolated }.map(\.element)
            let majority = try ClusterDatabase(nodes: others, name: "partition.db")
            try majority.execute("INSERT INTO t VALUES (2)")
            majority.close()

            try cluster.heal(isolated)
            let healed = try ClusterDatabase(nodes: cluster.addresses, name: "partition.db")
            defer { healed.close() }
            let values = try healed.fetchAll("SELECT n FROM t ORDER BY n").map { try $0.value(at: 0, as: Int.self) }
            // The write the isolated leader did not acknowledge is not committed, whatever its error said.
            #expect(values == [0, 2])
        }
    }
#endif
