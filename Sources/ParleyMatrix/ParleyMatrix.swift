/// The ParleyMatrix module. See ARCHITECTURE.md for what it owns.
public enum ParleyMatrixModule {}
