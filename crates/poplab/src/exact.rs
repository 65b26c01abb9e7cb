//! Placeholder: exact analysis of small populations is being written (see the issue tracker).
