"""IREE's stage for a padded pack at dynamic extents ("split packs", used by
synth.backends.iree_packed): `linalg.pack` of a 2-d f64 tensor whose extents are dynamic,
written as the pack of its full tiles, which needs no padding, and a padded pack of the
partial tiles along each tiled dim (a strip at most one tile wide), inserted into the
packed tensor at their tiles.

Why: IREE 3.13 vectorizes a pack with a `padding_value` at dynamic extents as a masked
read per tile, and LLVM turns the mask into one branch and one scalar load per element
(the `linalg.pack` of a 1200 x 1000 matrix into 8 x 1 tiles, A's pack in a packed
product: 4.3-5.1 ms a call at LARGE against 0.6-1.3 ms for the same pack at static
extents); the same pack without a `padding_value` is read unmasked, as at static extents
(0.8-1.2 ms). Each element lands in the tile and position the single pack gives it; the
padding elements (the partial tiles' rest) are the padding value, as there. A dim tiled
by 1 is not split (no tile is partial). Conformance test: tests/test_iree_split_pack.py
(real IREE against NumPy's pack at extents 1, primes, tile multiples and off by one, every
permutation the products use, and the rewrite's shape)."""

from __future__ import annotations


def pack_lines(result: str, source: str, extents: tuple[str, str], inner_dims_pos: tuple[int, int],
               tiles: tuple[int, int], outer_dims_perm: tuple[int, int] | None, padding: str) -> list[str]:
    """MLIR lines defining `%result`, the pack of `%source` (tensor<?x?xf64>, its extents
    the index values `extents`) into `inner_tiles` `tiles` at `inner_dims_pos`, outer dims
    in `outer_dims_perm` order (None: the source's), padded with `%padding`, as the full
    tiles' pack and each tiled dim's strip (above). Names made here begin with `%result_`."""
    r = result
    tile_of = {d: t for d, t in zip(inner_dims_pos, tiles)}  # a source dim's tile (1: none)
    perm = list(outer_dims_perm) if outer_dims_perm is not None else [0, 1]
    packed = f"tensor<?x?x{tiles[0]}x{tiles[1]}xf64>"
    matrix = "tensor<?x?xf64>"
    attrs = ((f"outer_dims_perm = [{perm[0]}, {perm[1]}] " if outer_dims_perm is not None else "")
             + f"inner_dims_pos = [{inner_dims_pos[0]}, {inner_dims_pos[1]}] "
             f"inner_tiles = [{tiles[0]}, {tiles[1]}]")
    lines = []
    full, whole, tiles_full, tiles_all = {}, {}, {}, {}  # per source dim: extents, tile counts
    for d in (0, 1):
        s, t = extents[d], tile_of[d]
        if t == 1:
            full[d] = whole[d] = tiles_full[d] = tiles_all[d] = s
            continue
        lines += [f"%{r}_q{d} = affine.apply affine_map<()[s0] -> (s0 floordiv {t})>()[{s}]",
                  f"%{r}_f{d} = affine.apply affine_map<()[s0] -> ((s0 floordiv {t}) * {t})>()[{s}]",
                  f"%{r}_c{d} = affine.apply affine_map<()[s0] -> (s0 ceildiv {t})>()[{s}]",
                  f"%{r}_p{d} = affine.apply affine_map<()[s0] -> (s0 ceildiv {t} - s0 floordiv {t})>()[{s}]",
                  f"%{r}_r{d} = affine.apply affine_map<()[s0] -> (s0 - (s0 floordiv {t}) * {t})>()[{s}]"]
        full[d], whole[d] = f"%{r}_f{d}", s
        tiles_full[d], tiles_all[d] = f"%{r}_q{d}", f"%{r}_c{d}"

    def pack(name, src, into, counts, offsets, result):
        # the pack of %src (its tiles counted by `counts`, per source dim) inserted into
        # `into` at tile `offsets` (per source dim)
        outer = [counts[perm[0]], counts[perm[1]]]
        at = [offsets[perm[0]], offsets[perm[1]]]
        pad = f"padding_value({padding} : f64) " if name != f"{r}_full" else ""
        return [f"%{name}_e = tensor.empty({outer[0]}, {outer[1]}) : {packed}",
                f"%{name} = linalg.pack {src} {pad}{attrs} into %{name}_e : {matrix} -> {packed}",
                f"%{result} = tensor.insert_slice %{name} into {into}[{at[0]}, {at[1]}, 0, 0] "
                f"[{outer[0]}, {outer[1]}, {tiles[0]}, {tiles[1]}] [1, 1, 1, 1] : {packed} into {packed}"]

    lines.append(f"%{r}_full_src = tensor.extract_slice %{source.lstrip('%')}[0, 0] [{full[0]}, {full[1]}] [1, 1] "
                 f": {matrix} to {matrix}")
    lines.append(f"%{r}_all = tensor.empty({tiles_all[perm[0]]}, {tiles_all[perm[1]]}) : {packed}")
    lines += pack(f"{r}_full", f"%{r}_full_src", f"%{r}_all", tiles_full, ["0", "0"], f"{r}_0")
    acc, done = f"%{r}_0", []
    padded = [d for d in (0, 1) if tile_of[d] > 1]
    for i, d in enumerate(padded):  # the strip of partial tiles along d (earlier strips' dims: full part only)
        other = 1 - d
        offsets, sizes, counts, at = ["0", "0"], ["", ""], ["", ""], ["0", "0"]
        offsets[d], sizes[d], counts[d], at[d] = full[d], f"%{r}_r{d}", f"%{r}_p{d}", tiles_full[d]
        if other in done:
            sizes[other], counts[other] = full[other], tiles_full[other]
        else:
            sizes[other], counts[other] = whole[other], tiles_all[other]
        lines.append(f"%{r}_s{d}_src = tensor.extract_slice %{source.lstrip('%')}[{offsets[0]}, {offsets[1]}] "
                     f"[{sizes[0]}, {sizes[1]}] [1, 1] : {matrix} to {matrix}")
        name = r if i == len(padded) - 1 else f"{r}_{i + 1}"
        lines += pack(f"{r}_s{d}", f"%{r}_s{d}_src", acc, counts, at, name)
        acc = f"%{name}"
        done.append(d)
    if not padded:  # nothing partial: the full pack is the pack
        lines.append(f"%{r} = tensor.cast %{r}_0 : {packed} to {packed}")
    return lines


def whole_pack(result: str, source: str, extents: tuple[str, str], inner_dims_pos: tuple[int, int],
               tiles: tuple[int, int], outer_dims_perm: tuple[int, int] | None, padding: str) -> list[str]:
    """The same pack as one padded `linalg.pack` (`pack_lines`' arguments): at static extents,
    where IREE reads the full tiles unmasked itself."""
    perm = list(outer_dims_perm) if outer_dims_perm is not None else [0, 1]
    tile_of = {d: t for d, t in zip(inner_dims_pos, tiles)}
    counts = [extents[d] if tile_of[d] == 1 else f"%{result}_c{d}" for d in (0, 1)]
    packed = f"tensor<?x?x{tiles[0]}x{tiles[1]}xf64>"
    lines = [f"%{result}_c{d} = affine.apply affine_map<()[s0] -> (s0 ceildiv {tile_of[d]})>()[{extents[d]}]"
             for d in (0, 1) if tile_of[d] > 1]
    return lines + [
        f"%{result}_e = tensor.empty({counts[perm[0]]}, {counts[perm[1]]}) : {packed}",
        f"%{result} = linalg.pack {source} padding_value({padding} : f64) "
        + (f"outer_dims_perm = [{perm[0]}, {perm[1]}] " if outer_dims_perm is not None else "")
        + f"inner_dims_pos = [{inner_dims_pos[0]}, {inner_dims_pos[1]}] inner_tiles = [{tiles[0]}, {tiles[1]}] "
        f"into %{result}_e : tensor<?x?xf64> -> {packed}"]
