"""pausepoint: agent runs that pause for a person, native to Jupyter."""
