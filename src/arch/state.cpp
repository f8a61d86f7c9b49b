#include "arch/state.hpp"

namespace pto::arch {

std::string_view fault_name(FaultCode c) {
  switch (c) {
    case FaultCode::Fault_None: return "Fault_None";
    case FaultCode::Fault_ExecutionStateCheck: return "Fault_ExecutionStateCheck";
    case FaultCode::Fault_IllegalInstruction: return "Fault_IllegalInstruction";
    case FaultCode::Fault_InstructionPC: return "Fault_InstructionPC";
    case FaultCode::Fault_InstructionPage: return "Fault_InstructionPage";
    case FaultCode::Fault_DataAlignment: return "Fault_DataAlignment";
    case FaultCode::Fault_DataPage: return "Fault_DataPage";
    case FaultCode::Fault_SoftwareBreakpoint: return "Fault_SoftwareBreakpoint";
    case FaultCode::Fault_HardwareBreakpoint: return "Fault_HardwareBreakpoint";
    case FaultCode::Fault_HardwareWatchpoint: return "Fault_HardwareWatchpoint";
    case FaultCode::Fault_Assert: return "Fault_Assert";
    case FaultCode::Fault_TileLegality: return "Fault_TileLegality";
    case FaultCode::Fault_TileAllocation: return "Fault_TileAllocation";
    case FaultCode::Fault_BundleControl: return "Fault_BundleControl";
    case FaultCode::Fault_BundlePostCommit: return "Fault_BundlePostCommit";
    case FaultCode::Fault_ServiceRequest: return "Fault_ServiceRequest";
    case FaultCode::Fault_ModelTileElements: return "PTO_MODEL_TILE_ELEMENTS exceeded";
  }
  return "Fault_?";
}

// SetFaultWithCause (asl/arch/memory-model/fault-precision.asl).
std::uint8_t trap_number(FaultCode c) {
  switch (c) {
    case FaultCode::Fault_None:
    case FaultCode::Fault_ModelTileElements:
    case FaultCode::Fault_ExecutionStateCheck: return 0;
    case FaultCode::Fault_IllegalInstruction: return 4;
    case FaultCode::Fault_InstructionPC: return 32;
    case FaultCode::Fault_InstructionPage: return 33;
    case FaultCode::Fault_DataAlignment: return 34;
    case FaultCode::Fault_DataPage: return 35;
    case FaultCode::Fault_HardwareBreakpoint: return 49;
    case FaultCode::Fault_SoftwareBreakpoint: return 50;
    case FaultCode::Fault_HardwareWatchpoint: return 51;
    case FaultCode::Fault_Assert: return 52;
    case FaultCode::Fault_TileLegality:
    case FaultCode::Fault_TileAllocation:
    case FaultCode::Fault_BundleControl:
    case FaultCode::Fault_BundlePostCommit: return 5;
    case FaultCode::Fault_ServiceRequest: return 6;
  }
  return 0;
}

std::string_view maintenance_operation_name(MaintenanceOperation op) {
  static constexpr std::string_view kNames[] = {
      "Maintenance_DC_IALL", "Maintenance_DC_IVA",  "Maintenance_DC_ISW",  "Maintenance_DC_ZVA",
      "Maintenance_DC_CVA",  "Maintenance_DC_CIVA", "Maintenance_DC_CSW",  "Maintenance_DC_CISW",
      "Maintenance_IC_IALL", "Maintenance_IC_IVA",  "Maintenance_BC_IALL", "Maintenance_BC_IVA",
      "Maintenance_TLB_IV",  "Maintenance_TLB_IAV", "Maintenance_TLB_IA",  "Maintenance_TLB_IALL"};
  return kNames[static_cast<unsigned>(op)];
}

std::string_view execution_control_request_name(ExecutionControlRequest r) {
  static constexpr std::string_view kNames[] = {"ExecutionControl_SendEvent", "ExecutionControl_WaitEvent",
                                                "ExecutionControl_WaitInterrupt", "ExecutionControl_WaitTimeout"};
  return kNames[static_cast<unsigned>(r)];
}

}  // namespace pto::arch
