"""Running the law tests against an implementation: loading it, gating laws by its
declared capabilities, classifying outcomes per law, and reporting them."""
