# Puts the repository root on sys.path so tests import calc.
