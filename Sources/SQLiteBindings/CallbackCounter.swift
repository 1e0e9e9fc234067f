/// A count of the callbacks of one connection that are running now, for a layer above that must know whether SQLite
/// is inside one of them: closing a connection from inside its own callback must wait until the statement that
/// called it returns, since finalizing that statement would free memory SQLite is still using.
///
/// The trampolines of the custom functions registered with a counter (the `counter:` forms of
/// ``ConnectionHandle/createScalarFunction(name:argumentCount:flags:counter:_:)``,
/// ``ConnectionHandle/createAggregateFunction(name:argumentCount:flags:counter:step:final:)`` and
/// ``ConnectionHandle/createWindowFunction(name:argumentCount:flags:counter:step:inverse:value:final:)``) add one to
/// ``depth`` around each call, so counting costs a function no closure of its own. A layer counts its other
/// callbacks in the same ``depth`` itself.
///
/// A counter belongs to its connection's thread, like the connection's callbacks. It is a plain mechanism: what a
/// counted function's error becomes is the closure given to ``init(reportingErrorsAs:)``, not a subclass's policy.
public final class CallbackCounter {
    /// Where the count is kept: a pointer, so a trampoline updates it without retaining the counter.
    @usableFromInline let depthStorage: UnsafeMutablePointer<Int>
    /// Maps an error thrown by a function registered with this counter before it is reported to SQLite.
    let errorMapping: ((any Error) -> any Error)?

    /// The number of callbacks running now, nested or not.
    @inlinable
    public var depth: Int {
        get { depthStorage.pointee }
        set { depthStorage.pointee = newValue }
    }

    /// Makes a counter at 0.
    ///
    /// - Parameter errorMapping: what an error thrown by a function registered with this counter becomes before it
    ///   is reported to SQLite (its description becomes the statement's message, and its code the statement's code
    ///   when it is a ``ResultCode`` or a ``ResultCodeError``); `nil` reports the error itself. Called on the error
    ///   path only.
    public init(reportingErrorsAs errorMapping: ((any Error) -> any Error)? = nil) {
        depthStorage = .allocate(capacity: 1)
        depthStorage.initialize(to: 0)
        self.errorMapping = errorMapping
    }

    deinit {
        depthStorage.deallocate()
    }

    /// The error to report to SQLite for `error`, thrown by a function registered with this counter.
    public func reportedError(_ error: any Error) -> any Error {
        errorMapping?(error) ?? error
    }
}
