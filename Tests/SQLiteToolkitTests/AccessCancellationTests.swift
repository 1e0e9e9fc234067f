import Foundation
import Testing

@testable import SQLiteToolkit

@Suite("The cancellation record of an async access", .timeLimit(.minutes(2)))
struct AccessCancellationTests {
    @Test("cancelled before its access starts, the record keeps it from starting; reset makes it ready again")
    func cancelledBeforeStart() throws {
        let db = try Database(path: nil)
        let record = AccessCancellation()
        record.cancel()
        #expect(!record.start(db.interruptHandle))
        record.reset()
        #expect(record.start(db.interruptHandle))
        record.finish()
        // Cancelling an access that has finished interrupts nothing: the next statement runs.
        record.cancel()
        #expect(try db.queryValue("SELECT 1", as: Int.self) == 1)
    }

    @Test("cancelled while its access runs, the record interrupts the running statement")
    func cancelledWhileRunning() throws {
        let db = try Database(path: nil)
        let record = AccessCancellation()
        #expect(record.start(db.interruptHandle))
        let started = Locked(false)
        let canceller = Thread {
            let deadline = Date(timeIntervalSinceNow: 20)
            while !started.current && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
            record.cancel()
        }
        canceller.start()
        let error = #expect(throws: DatabaseError.self) { try countToABillion(db, signalling: started) }
        #expect(error?.isInterrupted == true)
        record.finish()
    }

    /// A cancellation that races the end of the access either interrupts the access or comes after `finish()`
    /// and does nothing; it never reaches the statement the connection runs next, which is what `finish()` waiting
    /// for an interruption in progress ensures.
    @Test("a cancellation racing the access's end never interrupts the connection's next statement")
    func cancellationRacingFinish() throws {
        let db = try Database(path: nil)
        let record = AccessCancellation()
        let next =
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) SELECT count(*) FROM c"
        for _ in 0..<500 {
            record.reset()
            #expect(record.start(db.interruptHandle))
            let cancelled = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                record.cancel()
                cancelled.signal()
            }
            // The access: may be interrupted, or not, depending on when the cancellation lands.
            _ = try? db.queryValue("SELECT 1", as: Int.self)
            record.finish()
            #expect(try db.queryValue(next, as: Int.self) == 2000)
            #expect(wait(cancelled))
        }
    }
}
