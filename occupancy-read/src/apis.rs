//! The cudarc, cust and cuTile launch and loader APIs, in one table for every reader: the
//! attribute's body reader, `cargo occupancy report`'s launch finder and the fuzzers. Which
//! argument of each call holds the launch configuration or the kernel's name, and which
//! crate and version the call is from.

/// What a call of an API does, for the readers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Launches a kernel; `config` is the index of the `LaunchConfig` among its arguments.
    Launch {
        /// The argument that holds the configuration.
        config: usize,
    },
    /// Starts a launch of the function it is given (its first argument).
    Builder,
    /// Loads a kernel by its name; `name` is the index of the name among its arguments,
    /// `module` that of the module's name where the call takes one.
    Load {
        /// The argument that holds the kernel's name.
        name: usize,
        /// The argument that holds the name the module was loaded under
        /// (`get_func(module, name)`), if any.
        module: Option<usize>,
    },
    /// Runs a cuTile launcher (`kernels::add(..).grid(..)`, a [`TILE_GRID`] call in its
    /// chain) on a stream: a launch whose CUDA block and shared memory cuTile's compiler
    /// chooses when it compiles the tile kernel at run time, so no reader can check it.
    TileLaunch,
}

/// One method of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Api {
    /// The method's name, as called (`stream.launch_builder(&f)`).
    pub name: &'static str,
    /// What it does and where its arguments are.
    pub role: Role,
    /// Which crate and version it is from.
    pub from: &'static str,
}

/// Every launch and loader method the readers know.
pub const APIS: &[Api] = &[
    Api {
        name: "launch",
        role: Role::Launch { config: 0 },
        from: "cudarc: `LaunchArgs::launch(cfg)` (the launch builder, 0.13 on); \
               `LaunchAsync::launch(cfg, params)` before",
    },
    Api {
        name: "launch_cooperative",
        role: Role::Launch { config: 0 },
        from: "cudarc: `LaunchArgs::launch_cooperative(cfg)`, a cooperative launch",
    },
    Api {
        name: "launch_async",
        role: Role::Launch { config: 0 },
        from: "cudarc: `LaunchAsync::launch_async(cfg, params)`, in its early versions",
    },
    Api {
        name: "launch_on_stream",
        role: Role::Launch { config: 1 },
        from: "cudarc: `LaunchAsync::launch_on_stream(stream, cfg, params)`, before 0.13",
    },
    Api {
        name: LAUNCH_BUILDER,
        role: Role::Builder,
        from: "cudarc: `CudaStream::launch_builder(&func)`, 0.13 on",
    },
    Api {
        name: "load_function",
        role: Role::Load {
            name: 0,
            module: None,
        },
        from: "cudarc: `CudaModule::load_function(name)`, 0.13 on",
    },
    Api {
        name: "get_function",
        role: Role::Load {
            name: 0,
            module: None,
        },
        from: "cust: `Module::get_function(name)`",
    },
    Api {
        name: "get_func",
        role: Role::Load {
            name: 1,
            module: Some(0),
        },
        from: "cudarc: `CudaDevice::get_func(module, name)`, before 0.13",
    },
    Api {
        name: "async_on",
        role: Role::TileLaunch,
        from: "cuTile Rust (`cutile`): `DeviceOp::async_on(stream)` of a tile-kernel launcher",
    },
    Api {
        name: "sync_on",
        role: Role::TileLaunch,
        from: "cuTile Rust (`cutile`): `DeviceOp::sync_on(stream)` of a tile-kernel launcher",
    },
];

/// cuTile's launcher method that sets the grid of tile blocks (`.grid((n, 1, 1))`): a
/// chain with it, run by a [`Role::TileLaunch`] method, is a tile-kernel launch.
pub const TILE_GRID: &str = "grid";

/// cudarc's `launch_builder`: the function it is given is the kernel the chain launches.
pub const LAUNCH_BUILDER: &str = "launch_builder";

/// cust's `launch!(module.kernel<<<grid, block, smem, stream>>>(args))`: the macro's name.
pub const LAUNCH_MACRO: &str = "launch";

/// The index of the launch configuration among the arguments of the launch method `name`
/// (`launch`: 0, `launch_on_stream`: 1), or `None` when `name` launches nothing.
pub fn launch_config_arg(name: &str) -> Option<usize> {
    APIS.iter().find_map(|api| match api.role {
        Role::Launch { config } if api.name == name => Some(config),
        _ => None,
    })
}

/// The index of the kernel's name among the arguments of the loader `name`
/// (`load_function`: 0, `get_func`: 1), or `None` when `name` is not one of the table.
pub fn kernel_name_arg(name: &str) -> Option<usize> {
    APIS.iter().find_map(|api| match api.role {
        Role::Load { name: index, .. } if api.name == name => Some(index),
        _ => None,
    })
}

/// The index of the module's name among the arguments of the loader `name`
/// (`get_func(module, name)`: 0), or `None` when it takes none or is not one of the table.
pub fn module_name_arg(name: &str) -> Option<usize> {
    APIS.iter().find_map(|api| match api.role {
        Role::Load { module, .. } if api.name == name => module,
        _ => None,
    })
}

/// Whether `name` runs a cuTile launcher on a stream (`async_on`, `sync_on`): a launch
/// when the receiver's chain sets a grid ([`TILE_GRID`]); other cuTile operations run the
/// same way.
pub fn is_tile_launch(name: &str) -> bool {
    APIS.iter()
        .any(|api| api.name == name && api.role == Role::TileLaunch)
}

/// Whether `name` loads a kernel by name: a loader of the table, or a method or function
/// of the same shape that a crate writes around them (candle's `get_or_load_func`,
/// `get_or_load_custom_func`, a `load_func`): a name starting with `get` or `load` and
/// ending with `func` or `function`.
pub fn is_loader_like(name: &str) -> bool {
    kernel_name_arg(name).is_some()
        || ((name.starts_with("get") || name.starts_with("load"))
            && (name.ends_with("func") || name.ends_with("function")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_answers_for_each_api() {
        assert_eq!(launch_config_arg("launch"), Some(0));
        assert_eq!(launch_config_arg("launch_on_stream"), Some(1));
        assert_eq!(launch_config_arg("launch_builder"), None);
        assert_eq!(launch_config_arg("load_function"), None);
        assert_eq!(kernel_name_arg("load_function"), Some(0));
        assert_eq!(kernel_name_arg("get_function"), Some(0));
        assert_eq!(kernel_name_arg("get_func"), Some(1));
        assert_eq!(module_name_arg("get_func"), Some(0));
        assert_eq!(module_name_arg("load_function"), None);
        assert_eq!(module_name_arg("get_or_load_func"), None);
        assert_eq!(kernel_name_arg("get_or_load_func"), None);
        assert!(is_loader_like("get_or_load_func"));
        assert!(is_loader_like("get_or_load_custom_func"));
        assert!(is_loader_like("get_func"));
        assert!(!is_loader_like("launch"));
        assert!(!is_loader_like("get_or_insert"));
        assert!(is_tile_launch("async_on") && is_tile_launch("sync_on"));
        assert!(!is_tile_launch("launch") && !is_tile_launch("compile_on"));
        assert_eq!(launch_config_arg("async_on"), None);
        // One entry per name.
        for (i, a) in APIS.iter().enumerate() {
            assert!(APIS[i + 1..].iter().all(|b| b.name != a.name), "{}", a.name);
        }
    }
}
