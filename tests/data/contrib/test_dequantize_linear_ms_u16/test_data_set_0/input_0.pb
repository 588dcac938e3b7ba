BxJ

Ÿ;L¹wR?c