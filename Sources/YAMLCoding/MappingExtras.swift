/// What a `MappingUse` needs only now and then — flags for mappings of more than 64 pairs, the
/// absent keys recorded for suggestions, a key index for large mappings — kept apart and made
/// on first use, so that the usual use holds no array or dictionary to create and free.
/// Shared by copies of the use (they are only read; the reader's own use is the one changed).
final class MappingExtras {
    /// Which pairs were asked about, for mappings of more than 64 pairs.
    var usedFlags: [Bool]
    /// Keys asked about that the mapping lacks, in the recording pass.
    var absentQueried: [String] = []
    /// The first pair of each key, for lookups in large mappings.
    var index: [String: Int]?

    init(flagCount: Int) {
        usedFlags = [Bool](repeating: false, count: flagCount)
    }
}
