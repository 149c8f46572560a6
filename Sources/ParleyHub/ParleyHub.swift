/// The ParleyHub module. See ARCHITECTURE.md for what it owns.
public enum ParleyHubModule {}
