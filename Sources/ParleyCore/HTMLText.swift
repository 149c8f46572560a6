/// Text made safe for HTML text and quoted attribute values: the five HTML-significant
/// characters `& < > " '` as entities. Card fields come from users and templates: whatever
/// renders HTML (Element's `formatted_body`, the web door's pages) gets them through this.
public enum HTMLText {
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
