import Foundation

/// One file of `Generator/Spec/`: the wrappers of one receiver type, skips, constant groups, or
/// the map from C object types to Swift handle types. Every part is optional.
struct SpecFile: Decodable, Sendable {
    /// The Swift type the wrappers extend (`StatementHandle`), and the generated file's name.
    var receiver: String?
    /// The generated file's name when it is not the receiver's (`ConnectionHandle+Callbacks.swift`), so
    /// several spec files can extend one receiver.
    var file: String?
    var functions: [FunctionSpec]?
    var skip: [SkipSpec]?
    var constants: [ConstantGroupSpec]?
    /// C object type (`sqlite3_stmt`) to the Swift handle type that wraps a pointer to it.
    var handles: [String: String]?
}

/// The decision to wrap one C function, with one or more Swift wrappers.
struct FunctionSpec: Decodable, Sendable {
    /// The C name without the link prefix (`sqlite3_bind_int64`).
    var c: String
    /// The C type of the function, as the header declares it without the link prefix
    /// (`int (sqlite3_stmt *, int, sqlite3_int64)`); generation stops when the header disagrees.
    var signature: String
    /// The page of SQLite's documentation for the function.
    var link: String
    var wrappers: [WrapperSpec]
}

/// One Swift wrapper of a C function.
struct WrapperSpec: Decodable, Sendable {
    /// The Swift name (`bindInt64`).
    var swift: String
    /// Whether the wrapper is a static member (no receiver parameter), as for `open`.
    var isStatic: Bool?
    /// The doc comment's summary: what the wrapper does, in Swift terms.
    var doc: String
    /// One entry per C parameter, in order.
    var params: [ParameterSpec]
    var returns: ReturnSpec?

    enum CodingKeys: String, CodingKey {
        case swift
        case isStatic = "static"
        case doc, params, returns
    }
}

/// How a Swift wrapper supplies one C argument.
struct ParameterSpec: Decodable, Sendable, Equatable {
    enum Conversion: String, Decodable, Sendable {
        /// The receiver's raw pointer.
        case receiver = "self"
        /// Chosen from the C type: numbers as Swift numbers, objects as handles, the rest as imported.
        case auto
        /// A Swift `String` passed as NUL-terminated UTF-8 for the duration of the call.
        case text
        /// A `String?`, passed as NULL for `nil`.
        case optionalText
        /// The UTF-8 byte count of the `text` parameter named by `of`.
        case textLength
        /// An `UnsafeRawBufferPointer`; an empty buffer is passed as a valid, non-NULL pointer.
        case bytes
        /// The byte count of the `bytes` parameter named by `of`.
        case bytesLength
        /// `SQLITE_TRANSIENT`: SQLite copies the bytes before the call returns.
        case transient
        /// A fixed Swift expression given in `value`.
        case constant
        /// A Swift `Bool` passed as 1 or 0.
        case bool
        /// A Swift constant type (`type`) passed as its `rawValue`.
        case rawValue
        /// An out-parameter, returned converted (handles, text copied, numbers).
        case out
        /// An out-parameter returned as the raw value C stored.
        case rawOut
        /// A `void **` out-parameter through which SQLite hands over memory it allocated (a changeset), returned as
        /// a `SQLiteBuffer?` that frees it; its size comes from the `outBufferLength` parameter that names it.
        case outBuffer
        /// The `int *` out-parameter that receives the byte count of the `outBuffer` named by `of`.
        case outBufferLength
        /// A `char **` out-parameter through which SQLite hands over a message it allocated, copied into a
        /// `String?` and freed.
        case outOwnedText
    }

    /// The Swift parameter name (and, for outputs, the tuple element's label).
    var name: String
    /// The argument label; `nil` means the same as `name`, `_` means none.
    var label: String?
    var convert: Conversion
    /// For `textLength`, `bytesLength` and `outBufferLength`: the parameter measured. A 32-bit length refuses a
    /// longer buffer with `SQLITE_TOOBIG` before the call, so its wrapper must return a `resultCode`.
    var of: String?
    /// For `rawValue`: the Swift type; for `out` of a number: the Swift constant type made from it, or `Bool`.
    var type: String?
    /// For `constant`: the Swift expression.
    var value: String?
    /// For `auto` handles: whether `nil` is accepted.
    var optional: Bool?

    init(name: String, label: String? = nil, convert: Conversion) {
        self.name = name
        self.label = label
        self.convert = convert
    }

    private enum CodingKeys: String, CodingKey {
        case name, label, convert, of, type, value, optional
    }

    /// A parameter is a string (`"self"`, `"transient"`, `"out name"`, `"_ name"`, `"label name"`,
    /// `"name"`) or an object with the fields above.
    init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            let words = text.split(separator: " ").map(String.init)
            switch (words.first, words.count) {
            case ("self", 1): self = ParameterSpec(name: "self", convert: .receiver)
            case ("transient", 1): self = ParameterSpec(name: "destructor", convert: .transient)
            case ("out", 2): self = ParameterSpec(name: words[1], convert: .out)
            case ("rawOut", 2): self = ParameterSpec(name: words[1], convert: .rawOut)
            case (_, 1): self = ParameterSpec(name: words[0], convert: .auto)
            case (_, 2): self = ParameterSpec(name: words[1], label: words[0], convert: .auto)
            default:
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "cannot read parameter \"\(text)\"")
                )
            }
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.name = try container.decode(String.self, forKey: .name)
        self.label = try container.decodeIfPresent(String.self, forKey: .label)
        self.convert = try container.decodeIfPresent(Conversion.self, forKey: .convert) ?? .auto
        self.of = try container.decodeIfPresent(String.self, forKey: .of)
        self.type = try container.decodeIfPresent(String.self, forKey: .type)
        self.value = try container.decodeIfPresent(String.self, forKey: .value)
        self.optional = try container.decodeIfPresent(Bool.self, forKey: .optional)
    }
}

/// How a Swift wrapper turns the C result into its own.
struct ReturnSpec: Decodable, Sendable, Equatable {
    enum Conversion: String, Decodable, Sendable {
        /// Chosen from the C type: numbers as Swift numbers, objects as optional handles, the rest as imported.
        case auto
        /// A `ResultCode`.
        case resultCode
        /// A `Bool`: non-zero is `true`.
        case bool
        /// NUL-terminated text copied into a `String?` (`nil` for NULL).
        case text
        /// NUL-terminated text copied into `[UInt8]?` as its bytes, which need not be UTF-8 (`nil` for NULL).
        case textBytes
        /// Text of the byte length that the C function `length` reports for the same arguments, copied into
        /// a `String?`; embedded NULs survive.
        case textWithLength
        /// Bytes of the length `length` reports, copied into `[UInt8]` (empty for NULL).
        case bytesWithLength
        /// Bytes of the length `length` reports, copied into `[UInt8]?`: `nil` for NULL, empty for a zero-length
        /// BLOB. SQLite returns a null pointer for both, so the C function `datatype` tells them apart.
        case bytesOrNilWithLength
        /// Bytes of the length `length` reports, as an `UnsafeRawBufferPointer` valid until SQLite's next call.
        case bufferWithLength
        /// A Swift constant type (`type`) made from the C value.
        case rawValue
    }

    var convert: Conversion
    /// For `textWithLength`, `bytesWithLength`, `bytesOrNilWithLength`, `bufferWithLength`: the C function that
    /// reports the length.
    var length: String?
    /// For `rawValue`: the Swift type.
    var type: String?
    /// For `bytesOrNilWithLength`: the C function that reports the value's datatype.
    var datatype: String?

    init(convert: Conversion) {
        self.convert = convert
    }

    private enum CodingKeys: String, CodingKey {
        case convert, length, type, datatype
    }

    /// A result is a string naming the conversion, or an object with the fields above.
    init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            guard let conversion = Conversion(rawValue: text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "unknown result conversion \"\(text)\"")
                )
            }
            self = ReturnSpec(convert: conversion)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.convert = try container.decode(Conversion.self, forKey: .convert)
        self.length = try container.decodeIfPresent(String.self, forKey: .length)
        self.type = try container.decodeIfPresent(String.self, forKey: .type)
        self.datatype = try container.decodeIfPresent(String.self, forKey: .datatype)
    }
}

/// A decision not to wrap: one function by name, or every function whose name matches a pattern.
struct SkipSpec: Decodable, Sendable {
    var c: String?
    /// A regular expression over the whole spec name (`^sqlite3_.*16$`).
    var pattern: String?
    /// Why it is not wrapped; required.
    var reason: String
}

/// A group of `#define`d constants generated as one Swift type.
struct ConstantGroupSpec: Decodable, Sendable {
    enum Kind: String, Decodable, Sendable {
        /// A `RawRepresentable` struct with a static member per constant.
        case values
        /// An `OptionSet`.
        case options
        /// Static members added to a hand-written type (`ResultCode`).
        case `extension`
    }

    /// The Swift type.
    var type: String
    var kind: Kind
    /// `Int32` or `UInt32`: what the C API takes.
    var rawType: String
    var doc: String
    var link: String
    /// The prefix removed to form member names (`SQLITE_OPEN_`).
    var prefix: String
    /// Macros included by name.
    var names: [String]?
    /// Every macro whose name starts with one of these is included.
    var namePrefixes: [String]?
    /// Macros left out even though a prefix matches, with `reason`-free brevity: each is a known alias.
    var exclude: [String]?
    /// Whether to generate a `name` property giving each value's C name, for diagnostics.
    var generateNames: Bool?
}
