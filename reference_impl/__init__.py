"""turnlaw's reference agent runtime: the runtime the conformance suite is exercised
against. It is built in a later issue; this package exists so the distribution layout
(`conformance`, `reference_impl`) is fixed from the start."""
