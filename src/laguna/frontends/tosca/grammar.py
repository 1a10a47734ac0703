"""The keynames of each TOSCA 1.3 entity, as data; checked generically."""

from __future__ import annotations

_TYPE = {"derived_from", "version", "metadata", "description"}

#: entity -> the keynames it may have
KEYNAMES: dict[str, frozenset[str]] = {name: frozenset(keys) for name, keys in {
    "service_template": {"tosca_definitions_version", "namespace", "metadata", "description",
                         "dsl_definitions", "repositories", "imports", "artifact_types",
                         "data_types", "capability_types", "interface_types",
                         "relationship_types", "node_types", "group_types", "policy_types",
                         "topology_template"},
    "import": {"file", "repository", "namespace_uri", "namespace_prefix"},
    "repository": {"description", "url", "credential"},
    "artifact_types": _TYPE | {"mime_type", "file_ext", "properties"},
    "data_types": _TYPE | {"constraints", "properties", "key_schema", "entry_schema"},
    "capability_types": _TYPE | {"properties", "attributes", "valid_source_types"},
    "interface_types": _TYPE | {"inputs", "operations", "notifications"},
    "relationship_types": _TYPE | {"properties", "attributes", "interfaces",
                                   "valid_target_types"},
    "node_types": _TYPE | {"properties", "attributes", "requirements", "capabilities",
                           "interfaces", "artifacts"},
    "group_types": _TYPE | {"properties", "attributes", "members", "requirements",
                            "capabilities", "interfaces"},
    "policy_types": _TYPE | {"properties", "targets", "triggers"},
    "property": {"type", "description", "required", "default", "value", "status",
                 "constraints", "key_schema", "entry_schema", "external-schema", "metadata"},
    "attribute": {"type", "description", "default", "status", "key_schema", "entry_schema",
                  "metadata"},
    "parameter": {"type", "description", "value", "required", "default", "status",
                  "constraints", "key_schema", "entry_schema", "external-schema", "metadata"},
    "schema": {"type", "description", "constraints", "key_schema", "entry_schema"},
    "capability_definition": {"type", "description", "properties", "attributes",
                              "valid_source_types", "occurrences"},
    "requirement_definition": {"capability", "node", "relationship", "occurrences",
                               "node_filter", "description"},
    "relationship_definition": {"type", "interfaces", "description"},
    "interface_definition": {"type", "description", "inputs", "operations", "notifications"},
    "operation_definition": {"description", "implementation", "inputs", "outputs"},
    "implementation": {"primary", "dependencies", "timeout", "operation_host"},
    "artifact": {"type", "file", "repository", "description", "deploy_path",
                 "artifact_version", "checksum", "checksum_algorithm", "properties"},
    "topology_template": {"description", "inputs", "node_templates", "relationship_templates",
                          "groups", "policies", "outputs", "substitution_mappings",
                          "workflows"},
    "node_template": {"type", "description", "metadata", "directives", "properties",
                      "attributes", "requirements", "capabilities", "interfaces", "artifacts",
                      "node_filter", "copy"},
    "relationship_template": {"type", "description", "metadata", "properties", "attributes",
                              "interfaces", "copy"},
    "requirement_assignment": {"capability", "node", "relationship", "node_filter",
                               "occurrences"},
    "relationship_assignment": {"type", "properties", "interfaces"},
    "capability_assignment": {"properties", "attributes", "occurrences"},
    "group": {"type", "description", "metadata", "properties", "attributes", "members",
              "interfaces"},
    "policy": {"type", "description", "metadata", "properties", "targets", "triggers"},
    "substitution_mappings": {"node_type", "substitution_filter", "properties", "attributes",
                              "capabilities", "requirements", "interfaces"},
    "workflow": {"description", "metadata", "inputs", "preconditions", "steps",
                 "implementation", "outputs"},
    "precondition": {"target", "target_relationship", "condition"},
    "step": {"target", "target_relationship", "operation_host", "filter", "activities",
             "on_success", "on_failure"},
}.items()}

#: the versions of tosca_definitions_version laguna reads
VERSIONS = ("tosca_simple_yaml_1_3", "tosca_simple_yaml_1_2", "tosca_simple_yaml_1_1",
            "tosca_simple_yaml_1_0")

#: the type sections of a service template, each a kind of type
TYPE_KINDS = ("artifact_types", "data_types", "capability_types", "interface_types",
              "relationship_types", "node_types", "group_types", "policy_types")

#: the activities a workflow step may hold
ACTIVITIES = ("delegate", "set_state", "call_operation", "inline")

#: where a workflow step's call_operation may run (TOSCA 1.3 operation_host)
OPERATION_HOSTS = ("SELF", "HOST", "SOURCE", "TARGET", "ORCHESTRATOR")

#: TOSCA 1.3 node states (section 3.4.1)
NODE_STATES = ("initial", "creating", "created", "configuring", "configured", "starting",
               "started", "stopping", "deleting", "deleted", "error")

#: the node states in which something may run, so that undeploy stops it first
#: (``error`` included: a failed start may have left processes)
RUNNING_STATES = ("starting", "started", "stopping", "error")
