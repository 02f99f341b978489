"""Who may depend on each lib package: generated from tools/arrows.txt by tools/check_arrows.py --fix."""

_USERS = {
    "accept": ["accept", "app"],
    "app": ["app"],
    "backend": ["app", "backend", "launch", "measure", "sweep", "traffic"],
    "config": ["accept", "app", "config"],
    "core": ["accept", "app", "backend", "config", "core", "cuda", "diagnose", "export", "gate", "history", "launch", "measure", "model", "rendezvous", "report", "result", "stats", "sweep", "traffic"],
    "cuda": ["backend", "cuda"],
    "diagnose": ["app", "diagnose"],
    "export": ["export"],
    "gate": ["app", "gate", "history"],
    "history": ["history"],
    "launch": ["app", "launch"],
    "measure": ["app", "launch", "measure"],
    "model": ["accept", "app", "diagnose", "export", "gate", "history", "launch", "measure", "model", "report", "result", "sweep"],
    "rendezvous": ["backend", "launch", "rendezvous"],
    "report": ["app", "gate", "history", "report"],
    "result": ["accept", "app", "diagnose", "export", "gate", "history", "launch", "measure", "report", "result"],
    "stats": ["accept", "app", "diagnose", "export", "gate", "history", "measure", "report", "result", "stats"],
    "sweep": ["app", "launch", "sweep"],
    "traffic": ["measure", "traffic"],
}

_ALWAYS = ["//bench:__subpackages__", "//fuzz:__subpackages__", "//reports:__subpackages__", "//tools:__subpackages__"]

def layer_visibility(package):
    """The default_visibility of lib/PACKAGE and its subpackages."""
    return ["//lib/%s:__subpackages__" % user for user in _USERS[package]] + _ALWAYS
