"""What must survive a compaction (#26): the block PreCompact asks the summariser to keep
(`steer`), the check of Claude Code's summary against it (`check`), the per-session record of
what was kept and lost (`store`) and the one reminder line a later hook hands the model
(`pending`). docs/COMPACTION.md."""
