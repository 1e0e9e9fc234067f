#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// UUIDs are stored as 16-byte blobs; reading also accepts their text form.
extension UUID: DatabaseValueConvertible {
    /// The UUID as a 16-byte `.blob`.
    public var databaseValue: DatabaseValue {
        .blob(withUnsafeBytes(of: uuid) { Data($0) })
    }

    /// A UUID from a 16-byte blob or from text such as `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> UUID? {
        switch value {
        case .blob(let data) where data.count == 16:
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &bytes) { $0.copyBytes(from: data) }
            return UUID(uuid: bytes)
        case .text(let text):
            return UUID(uuidString: text)
        default:
            return nil
        }
    }
}
