import os
import sys

# The tests import the harness and workers from here, and weft from the package built
# in place (python/weft) unless an installed one comes first.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.append(os.path.join(HERE, "..", "..", "python"))
