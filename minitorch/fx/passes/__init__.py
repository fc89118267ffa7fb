"""Graph passes: shape propagation and Conv+BatchNorm fusion."""
