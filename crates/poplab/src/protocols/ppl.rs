//! Placeholder: this protocol is being written (see the issue tracker).
