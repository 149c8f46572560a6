/// What `parley_build_info` and `/api/v1/bots` report about the build.
public enum ParleyVersion {
    /// Parley's version (raised with each release).
    public static let current = "0.1.0"
    /// The Swift compiler that built it, major and minor.
    public static var swift: String {
        #if compiler(>=6.4)
        "6.4+"
        #elseif compiler(>=6.3)
        "6.3"
        #elseif compiler(>=6.2)
        "6.2"
        #else
        "6.1-"
        #endif
    }
}
