/**
 * @file
 * @brief Umbrella header: everything onchip offers.
 */
#pragma once

#include <onchip/detail/config.cuh>
#include <onchip/histogram.cuh>
#include <onchip/load.cuh>
#include <onchip/smem.cuh>
#include <onchip/stage.cuh>
#include <onchip/version.hpp>
