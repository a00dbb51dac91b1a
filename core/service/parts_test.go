package service

import (
	"reflect"
	"strings"
	"testing"
)

// TestNoLateHandshakes holds that core/instance wires the service's parts
// as it makes them: the service has no method through which something is
// handed to it after New (a Use…, a Follow…, or the egress proxy's options
// to be handed back), so a service is whole once made.
func TestNoLateHandshakes(t *testing.T) {
	typ := reflect.TypeFor[*Service]()
	for i := range typ.NumMethod() {
		name := typ.Method(i).Name
		if strings.HasPrefix(name, "Use") || strings.HasPrefix(name, "Follow") || name == "EgressOptions" {
			t.Errorf("Service.%s hands something to the service after it is made; give it in Options, made by core/instance", name)
		}
	}
}
