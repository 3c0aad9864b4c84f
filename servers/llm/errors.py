"""What a server's model raises when it cannot complete, whichever model it is."""


class ModelUnavailable(RuntimeError):
    """No model is configured, or the configured one cannot be reached."""
