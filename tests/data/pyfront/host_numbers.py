"""Number literal forms."""
ints = [0, 7, 1_000_000, 0x10000, 0XdeadBEEF, 0o755, 0O17, 0b1010_1010, 0B1, 00, 0_0]
big = 123456789012345678901234567890 + 0xFFFF_FFFF_FFFF_FFFF_FFFF
floats = [0.0, 1., .5, 1e-30, -1e30, 6.02e+23, 1_000.000_1, 1E5, 3.14e-0_1, 0e0]
imag = [1j, 2.5J, 1e3j, 0j, 10_0j]
complex_values = [1 + 2j, -3.5 - 0.5j]
attrs = (1).bit_length(), 1.5.hex(), 0x10 .real, 1e3.is_integer()
shifts = 1 << 20, 0x40000 >> 4, ~0, -(-5), +3, 2 ** -1, (-2) ** 2, -2 ** 2
ops = 7 // 2, 7 % 3, 7 / 2, divmod(7, 2), 2 ** 3 ** 2, 1 if 0 else 2
print(ints, big, floats, imag, complex_values, attrs, shifts, ops)
