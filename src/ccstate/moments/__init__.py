"""The money moments, where the user looks (docs/MOMENTS.md): the status line (prompt cache
countdown, what the next turn re-writes when it is cold, what ccstate kept out), the resume
warning (SessionStart `resume`/`fork` on an expired cache) and the model-switch warning
(PreModelSwitch). Standard library only: the status line runs after every assistant message."""
