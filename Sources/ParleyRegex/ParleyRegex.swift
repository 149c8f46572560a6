/// The ParleyRegex module. See ARCHITECTURE.md for what it owns.
public enum ParleyRegexModule {}
