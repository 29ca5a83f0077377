"""Rule profiles: blackjack variants as data files."""

from audit.profiles.model import Profile, Rules, RuleSource
from audit.profiles.registry import ProfileRegistry, load_profile_file, load_registry

__all__ = [
    "Profile",
    "ProfileRegistry",
    "RuleSource",
    "Rules",
    "load_profile_file",
    "load_registry",
]
