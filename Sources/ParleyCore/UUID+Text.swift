import Foundation

extension UUID {
    /// The same text as `uuidString` (upper-case hex, 8-4-4-4-12), written without the C
    /// formatter Foundation uses on Linux: stores write three of these per message, and
    /// `uuidString` cost more than the row insert.
    var text: String {
        let digits: StaticString = "0123456789ABCDEF"
        return withUnsafeBytes(of: uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { buffer in
                digits.withUTF8Buffer { hex in
                    var position = 0
                    for (index, byte) in raw.enumerated() {
                        if index == 4 || index == 6 || index == 8 || index == 10 {
                            buffer[position] = UInt8(ascii: "-")
                            position += 1
                        }
                        buffer[position] = hex[Int(byte >> 4)]
                        buffer[position + 1] = hex[Int(byte & 0x0F)]
                        position += 2
                    }
                    return position
                }
            }
        }
    }
}
