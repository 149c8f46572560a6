import ParleyCore
import YAMLCoding

/// Checks a profile directory (`profiles.yaml`): ids and names are shown on terminals and in
/// lines agents act on (ticket cards, relayed messages), so one with a control character — an
/// escape sequence, a newline that forges a line — is refused where it is written.
public enum ProfileValidator {
    /// Every problem of `profiles`, read from `source`.
    public static func validate(_ profiles: OrderedMap<ProfileEntry>, source: SourceFile) -> [YAMLError] {
        var errors: [YAMLError] = []
        for entry in profiles.entries {
            if entry.name.isEmpty || VisibleText.hasControl(entry.name) {
                errors.append(source.error(at: entry.keyMark,
                                           "invalid user id '\(VisibleText.line(entry.name))': expected an id without control characters"))
            }
            if let name = entry.value.name, VisibleText.hasControl(name) {
                errors.append(source.error(at: entry.value.nameMark ?? entry.mark,
                                           "invalid name '\(VisibleText.line(name))' of user '\(VisibleText.line(entry.name))': names may not hold control characters or line breaks"))
            }
        }
        return errors
    }
}
