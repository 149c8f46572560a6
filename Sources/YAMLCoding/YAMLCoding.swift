/// The YAMLCoding module. See ARCHITECTURE.md for what it owns.
public enum YAMLCodingModule {}
