/// The ParleyFlowTest module. See ARCHITECTURE.md for what it owns.
public enum ParleyFlowTestModule {}
