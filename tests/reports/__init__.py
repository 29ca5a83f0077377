from pathlib import Path

HERE = Path(__file__).parent
DATA = HERE / "data"
GOLDEN = HERE / "golden"
