"""The player: a run's film (frames, the client's actions, the record lines) in any page."""
