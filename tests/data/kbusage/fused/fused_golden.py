def _get_device():
    return "cpu"
