"""Dies before answering start, as an adapter with a missing dependency would."""

import sys

print("faulty adapter: cannot import my_runtime", file=sys.stderr, flush=True)
sys.exit(2)
