# Factor once, solve many times: LU with partial pivoting, its pivots and permutation, solving
# with the factors (and the transposed system), the _ex solvers that report a singular matrix
# instead of raising, the symmetric indefinite LDL^T factorisation, a triangular solve, the
# tensor solvers, and the nuclear and spectral norms.
import torch

torch.set_default_dtype(torch.float64)
A = torch.tensor([[2.0, 1.0, 1.0], [4.0, -6.0, 0.0], [-2.0, 7.0, 2.0]])
B = torch.tensor([[5.0, 1.0], [-2.0, 0.0], [9.0, 3.0]])

LU, pivots = torch.linalg.lu_factor(A)
print(LU, pivots, pivots.dtype)
X = torch.linalg.lu_solve(LU, pivots, B)
print(X, torch.allclose(A @ X, B))
print(torch.linalg.lu_solve(LU, pivots, B, adjoint=True))
print(torch.linalg.lu_solve(LU, pivots, B.mT, left=False))

P, L, U = torch.linalg.lu(A)
print(P, L, U, torch.allclose(P @ L @ U, A))
P2, L2, U2 = torch.lu_unpack(LU, pivots)
print(torch.equal(P, P2), torch.allclose(L, L2), torch.allclose(U, U2))
sign = torch.where((pivots != torch.arange(1, 4, dtype=torch.int32)).sum() % 2 == 1, -1.0, 1.0)
print(round((sign * U.diagonal().prod()).item(), 6), round(torch.linalg.det(A).item(), 6))

tall = torch.arange(12.0).reshape(4, 3) ** 0.5
Pt, Lt, Ut = torch.linalg.lu(tall)
print(Lt.shape, Ut.shape, torch.allclose(Pt @ Lt @ Ut, tall))

singular = torch.tensor([[1.0, 2.0], [2.0, 4.0]])
factors = torch.linalg.lu_factor_ex(singular)
print(factors.info, torch.linalg.inv_ex(singular).info, torch.linalg.solve_ex(singular, torch.ones(2, 1)).info)
try:
    torch.linalg.lu_factor(singular)
except RuntimeError as error:
    print("lu_factor refused:", str(error).split(":")[1].strip()[:30])
inverse, info = torch.linalg.inv_ex(A)
print(inverse, info)
result, info = torch.linalg.solve_ex(A, B, check_errors=True)
print(result, info)

S = torch.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]])
LD, ldl_pivots = torch.linalg.ldl_factor(S)
print(LD, ldl_pivots)
print(torch.linalg.ldl_solve(LD, ldl_pivots, B))

upper = torch.triu(A) + torch.eye(3)
solution, copy = torch.triangular_solve(B, upper)
print(solution, torch.equal(copy, upper))
print(torch.linalg.solve_triangular(upper, B, upper=True))

T = torch.eye(6).reshape(6, 2, 3) * 2 + 0.1
print(torch.linalg.tensorinv(T, ind=1).shape, torch.linalg.tensorsolve(T, torch.ones(6)))

W = torch.arange(12.0).reshape(3, 4) / 3 - 1
print(round(torch.linalg.matrix_norm(W, "nuc").item(), 6), round(torch.linalg.norm(W, 2).item(), 6))
print(round(torch.linalg.matrix_norm(W, -2).item(), 6), round(torch.norm(W, p="nuc").item(), 6))

M = A.clone().requires_grad_()
LU, pivots = torch.linalg.lu_factor(M)
loss = torch.linalg.lu_solve(LU, pivots, B).pow(2).sum() + torch.linalg.matrix_norm(M, "nuc")
loss.backward()
print(LU.grad_fn.name(), M.grad)
