/// The ParleyBots module. See ARCHITECTURE.md for what it owns.
public enum ParleyBotsModule {}
