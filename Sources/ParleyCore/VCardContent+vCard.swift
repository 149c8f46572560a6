// MARK: - RFC 6350 vCard 4.0 text

extension VCardContent {
    /// The card as vCard 4.0 text: CRLF line ends, text values escaped (`\\`, `\,`, `\;`,
    /// `\n`), the PHOTO URI with what no URI contains percent-encoded, lines folded at 75 octets
    /// without splitting a UTF-8 character.
    public func vCardText() -> String {
        var lines = ["BEGIN:VCARD", "VERSION:4.0", "FN:" + VCardText.escape(name)]
        let (given, family) = Self.splitName(name)
        lines.append("N:" + [family, given, "", "", ""].map(VCardText.escape).joined(separator: ";"))
        if let phone { lines.append("TEL;VALUE=text:" + VCardText.escape(phone)) }
        if let email { lines.append("EMAIL:" + VCardText.escape(email)) }
        if let org { lines.append("ORG:" + VCardText.escape(org)) }
        if let title { lines.append("TITLE:" + VCardText.escape(title)) }
        if let avatar { lines.append("PHOTO:" + VCardText.uri(avatar)) }
        if let user { lines.append("UID;VALUE=text:" + VCardText.escape(user)) }
        lines.append("END:VCARD")
        return lines.map(VCardText.fold).joined(separator: "\r\n") + "\r\n"
    }

    /// Parses vCard text (4.0, also 3.0): unfolds lines, unescapes values, reads FN, N, TEL,
    /// EMAIL, ORG, TITLE, PHOTO and UID; ignores other properties. Malformed text throws
    /// `invalidContent` naming the line.
    public init(vCard text: String) throws {
        let lines = VCardText.unfold(text)
        var properties: [String: String] = [:]
        var began = false, ended = false
        for (number, line) in lines where !line.isEmpty {
            guard !ended else { throw VCardText.error("text after END:VCARD", line: number) }
            guard let property = VCardText.Property(line) else {
                throw VCardText.error("expected NAME:VALUE, found '\(line.prefix(40))'", line: number)
            }
            if !began {
                guard property.name == "BEGIN", property.value.uppercased() == "VCARD" else {
                    throw VCardText.error("expected BEGIN:VCARD", line: number)
                }
                began = true
                continue
            }
            switch property.name {
            case "END": ended = true
            case "VERSION":
                guard ["4.0", "3.0"].contains(property.value) else {
                    throw VCardText.error("unsupported vCard version \(property.value)", line: number)
                }
            case "FN", "N", "TEL", "EMAIL", "ORG", "TITLE", "PHOTO", "UID":
                // The first of repeated properties wins (the preferred one comes first in practice).
                if properties[property.name] == nil { properties[property.name] = property.value }
            default: break
            }
        }
        guard began else { throw VCardText.error("expected BEGIN:VCARD", line: 1) }
        guard ended else { throw VCardText.error("missing END:VCARD", line: lines.last(where: { !$0.line.isEmpty })?.number ?? 1) }
        let structured = properties["N"].map { VCardText.components($0) }
        let nameFromN = structured.map { parts in
            parts.count > 1 ? [parts[1], parts[0]].filter { !$0.isEmpty }.joined(separator: " ") : parts.first ?? ""
        }
        guard let name = properties["FN"].map(VCardText.unescape) ?? nameFromN, !name.isEmpty else {
            throw VCardText.error("missing FN (formatted name)", line: 1)
        }
        var phone = properties["TEL"].map(VCardText.unescape)
        if let value = phone, value.lowercased().hasPrefix("tel:") { phone = String(value.dropFirst(4)) }
        var org = properties["ORG"].map(VCardText.unescape)
        // ORG is structured (organisation;unit;…): keep the organisation, unescape each part.
        if let raw = properties["ORG"] { org = VCardText.components(raw).filter { !$0.isEmpty }.joined(separator: ", ") }
        self.init(user: properties["UID"].map(VCardText.unescape), name: name, avatar: properties["PHOTO"],
                  phone: phone, email: properties["EMAIL"].map(VCardText.unescape), org: org,
                  title: properties["TITLE"].map(VCardText.unescape))
    }

    /// Given names and family name: the last word is taken as the family name.
    static func splitName(_ name: String) -> (given: String, family: String) {
        let words = name.split(separator: " ")
        guard words.count > 1, let last = words.last else { return (name, "") }
        return (words.dropLast().joined(separator: " "), String(last))
    }
}
