from tests.widget.recording import comms

__all__ = ["comms"]
