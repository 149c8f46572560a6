import Foundation

/// A value a store reads or writes: SQLite's five storage classes (PostgreSQL's types map onto them).
public enum StoreValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

extension StoreValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(floatLiteral value: Double) { self = .real(value) }
}

extension StoreValue {
    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: Bool) { self = .integer(value ? 1 : 0) }
    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    public init(_ value: Int64?) { self = value.map { .integer($0) } ?? .null }

    public var int64: Int64? {
        switch self {
        case .integer(let value): return value
        case .real(let value): return Int64(value)
        default: return nil
        }
    }
    public var int: Int? { int64.map { Int($0) } }
    public var double: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .real(let value): return value
        default: return nil
        }
    }
    public var string: String? {
        switch self {
        case .text(let value): return value
        case .blob(let data): return String(decoding: data, as: UTF8.self)
        default: return nil
        }
    }
    public var data: Data? {
        switch self {
        case .blob(let data): return data
        case .text(let value): return Data(value.utf8)
        default: return nil
        }
    }
    public var isNull: Bool { self == .null }
}
