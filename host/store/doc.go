// Package store holds a world's entities: slots with generations (an
// entity's name on the wire), the hierarchy, the engine components and the
// project's replicated ones. LoadScene and Instantiate build a project's
// scenes and prefabs into it. It knows nothing of physics, Lua or the
// network.
package store
