"""Graph passes: shape propagation, Conv+BatchNorm fusion and Linear+ReLU fusion (course task 10.2)."""
