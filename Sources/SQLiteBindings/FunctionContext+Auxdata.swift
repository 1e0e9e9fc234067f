import CSQLiteToolkit

// Swift objects as a function's auxiliary data: the object is retained while SQLite keeps it and released by the
// destructor SQLite calls when it drops it (at the end of the statement, when the argument changes, or at once).

/// The destructor of auxiliary data set by ``FunctionContext/setAuxiliaryObject(_:forArgument:)``: releases the
/// object.
private let releaseAuxiliaryObject: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
    guard let pointer else { return }
    Unmanaged<AnyObject>.fromOpaque(pointer).release()
}

extension FunctionContext {
    /// The object attached by ``setAuxiliaryObject(_:forArgument:)`` to the argument at `argumentIndex` (0-based) in
    /// an earlier call of the function in the same statement, or `nil` when there is none or it is not a `T`.
    ///
    /// SQLite keeps auxiliary data between calls only for arguments that are constant in the statement (a literal
    /// or a bound parameter), so it is a per-statement cache of something computed from such an argument, such as a
    /// compiled regular expression:
    ///
    /// ```swift
    /// let compiled = context.auxiliaryObject(forArgument: 0, as: CompiledPattern.self)
    ///     ?? CompiledPattern(arguments[0].valueString() ?? "")
    /// context.setAuxiliaryObject(compiled, forArgument: 0)
    /// ```
    ///
    /// Only objects set through ``setAuxiliaryObject(_:forArgument:)`` may be read this way; raw pointers set with
    /// ``setAuxdata(_:_:_:)`` are read with ``auxdata(_:)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/get_auxdata.html>
    @inlinable
    public func auxiliaryObject<T: AnyObject>(forArgument argumentIndex: Int32, as type: T.Type = T.self) -> T? {
        guard let pointer = auxdata(argumentIndex) else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue() as? T
    }

    /// Attaches `object` to the argument at `argumentIndex` (0-based) for later calls of the function in the same
    /// statement. SQLite retains it until it drops it, which may be before this call returns, so keep using your
    /// own reference, not the result of ``auxiliaryObject(forArgument:as:)``, within this call.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/get_auxdata.html>
    public func setAuxiliaryObject(_ object: AnyObject, forArgument argumentIndex: Int32) {
        setAuxdata(argumentIndex, Unmanaged.passRetained(object).toOpaque(), releaseAuxiliaryObject)
    }
}
