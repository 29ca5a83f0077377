from tests.web.conftest import db, night_db

__all__ = ["db", "night_db"]
